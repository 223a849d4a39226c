/**
 * Named points in the steps of a backup, a restore, an erasure replay and an erasure job (as it
 * starts, the jobs this process claimed held under its lease) where the fault tests
 * kill the process (`HEALTHSPAN_KILL_AT=<point>`): each such step must leave the data so that a
 * rerun converges and nothing erased is served (docs/backup.md, "Faults"). Read once, at the
 * first point reached; unset in every real deployment, where a point costs one comparison.
 */
export type FaultPoint =
  | 'backup.copied'
  | 'backup.checked'
  | 'backup.manifest-written'
  | 'backup.named'
  | 'restore.in-place'
  | 'restore.migrated'
  | 'restore.recorded'
  | 'replay.entry'
  | 'replay.entries'
  | 'replay.erasures'
  | 'erasure.running';

let armed: string | undefined | null = null;

export function faultPoint(point: FaultPoint): void {
  if (armed === null) armed = process.env.HEALTHSPAN_KILL_AT || undefined;
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}
