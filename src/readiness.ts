/** Something besides the database that a process needs to be ready (its worker's queue). */
export interface ReadinessCheck {
  name: 'queue';
  check(): { ok: boolean; reason?: string };
}

/**
 * Whether the process is ready (what `/ready` answers, and the `healthspan_ready` gauge): the
 * database first, then each check; the first failure's reason.
 */
export async function readiness(
  isReady: () => Promise<{ ok: boolean; reason?: string }>,
  checks: readonly ReadinessCheck[] = [],
): Promise<{ ok: boolean; reason?: string }> {
  const ready = await isReady();
  if (!ready.ok) return ready;
  return checks.map((c) => c.check()).find((r) => !r.ok) ?? { ok: true };
}
