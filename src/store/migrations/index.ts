import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';
import * as m0001 from './0001_initial.js';
import * as m0002 from './0002_results.js';
import * as m0003 from './0003_running_jobs_index.js';
import * as m0004 from './0004_webhooks.js';
import * as m0005 from './0005_job_notifications.js';
import * as m0006 from './0006_job_attempts.js';
import * as m0007 from './0007_lz4_compression.js';
import * as m0008 from './0008_finished_jobs_index.js';
import * as m0009 from './0009_lifecycle.js';
import * as m0010 from './0010_job_trace_context.js';
import * as m0011 from './0011_sandbox.js';
import * as m0012 from './0012_self_service.js';
import * as m0013 from './0013_endpoint_attempts.js';
import * as m0014 from './0014_attempt_retention.js';
import * as m0015 from './0015_held_jobs.js';
import * as m0016 from './0016_console_sessions.js';
import * as m0017 from './0017_console_actor.js';
import * as m0020 from './0020_listen_position.js';
import * as m0021 from './0021_erasure_ledger.js';
import * as m0022 from './0022_door_check.js';
import * as m0023 from './0023_lean_submission_rows.js';
import * as m0024 from './0024_packed_documents.js';
import * as m0025 from './0025_audit_resource_index.js';
import * as m0026 from './0026_erasure_replay_state.js';

export interface DialectMigration {
  up(db: Kysely<unknown>, driver: DriverName): Promise<void>;
}

/** Ordered by name; a new migration is a new file added here, never an edit of an applied one. */
export const MIGRATIONS: Record<string, DialectMigration> = {
  '0001_initial': m0001,
  '0002_results': m0002,
  '0003_running_jobs_index': m0003,
  '0004_webhooks': m0004,
  '0005_job_notifications': m0005,
  '0006_job_attempts': m0006,
  '0007_lz4_compression': m0007,
  '0008_finished_jobs_index': m0008,
  '0009_lifecycle': m0009,
  '0010_job_trace_context': m0010,
  '0011_sandbox': m0011,
  '0012_self_service': m0012,
  '0013_endpoint_attempts': m0013,
  '0014_attempt_retention': m0014,
  '0015_held_jobs': m0015,
  '0016_console_sessions': m0016,
  '0017_console_actor': m0017,
  '0020_listen_position': m0020,
  '0021_erasure_ledger': m0021,
  '0022_door_check': m0022,
  '0023_lean_submission_rows': m0023,
  '0024_packed_documents': m0024,
  '0025_audit_resource_index': m0025,
  '0026_erasure_replay_state': m0026,
};
