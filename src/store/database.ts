import type { ColumnType, Generated } from 'kysely';
import type { ApiMode } from '../domain/mode.js';

/**
 * Row types as the drivers return them. Timestamps are ISO-8601 text on SQLite and
 * timestamptz on PostgreSQL; booleans are 0/1 on SQLite. Repositories convert through
 * `codec.ts`, so the rest of the code only ever sees ISO strings and booleans.
 */
export type Timestamp = ColumnType<string | Date, string, string>;
export type NullableTimestamp = ColumnType<string | Date | null, string | null, string | null>;
export type Bool = ColumnType<number | boolean, number | boolean, number | boolean>;
export type Json = ColumnType<string | object, string, string>;
export type NullableJson = ColumnType<string | object | null, string | null, string | null>;
/**
 * A JSON document stored packed (`packing/packed-json.ts`): bytes as the drivers return them, or
 * text in rows written before packing. Read through `unpackJson`.
 */
export type PackedJson = ColumnType<Uint8Array | string, Buffer | string, Buffer | string>;

export interface TenantTable {
  id: string;
  name: string;
  active: Bool;
  /** Null: RETENTION_DAYS applies; 0: kept until erased (`0009_lifecycle`). */
  retention_days: ColumnType<number | null, number | null | undefined, number | null>;
  /** `live`, or `test` for an account's sandbox (`0011_sandbox`). */
  mode: ColumnType<ApiMode, ApiMode | undefined, ApiMode>;
  /** A sandbox's live account; null for a live account. */
  live_tenant_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PartnerTable {
  id: string;
  tenant_id: string;
  name: string;
  /** A sandbox credential's live credential; null for a live one. */
  live_partner_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface ApiKeyTable {
  id: string;
  partner_id: string;
  tenant_id: string;
  key_hash: string;
  key_prefix: string;
  created_at: Timestamp;
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

/** One row; `epoch` moves whenever a key or tenant changes so API processes drop cached keys. */
export interface AuthStateTable {
  id: number;
  epoch: number;
}

export interface SubmissionTable {
  id: string;
  tenant_id: string;
  partner_id: string;
  subject_id: string;
  partner_submission_id: string;
  partner_subject_id: string;
  status: string;
  correlation_id: string;
  request_id: string;
  original_body: PackedJson;
  normalised_body: PackedJson;
  document_count: number;
  marker_count: number;
  received_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The fingerprint of the checks the door ran (`0022_door_check`); null before it. */
  door_checks: string | null;
  /** What they found: `passed`; null before `0022_door_check`. */
  door_outcome: string | null;
}

/** The history of a job's attempts (`0006_job_attempts`). */
export interface JobAttemptTable {
  id: Generated<number>;
  job_id: string;
  attempt: number;
  worker_id: string;
  started_at: Timestamp;
  finished_at: NullableTimestamp;
  /** completed, retrying, failed or released; null while running. */
  outcome: string | null;
}

export interface JobTable {
  id: string;
  tenant_id: string;
  submission_id: string | null;
  type: string;
  status: string;
  payload: NullableJson;
  correlation_id: string | null;
  request_id: string | null;
  attempts: number;
  max_attempts: number;
  run_at: Timestamp;
  locked_until: NullableTimestamp;
  locked_by: string | null;
  queued_at: Timestamp;
  accepted_at: Timestamp;
  started_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  failed_at: NullableTimestamp;
  sla_deadline_at: NullableTimestamp;
  error_summary: string | null;
  traceparent: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IdempotencyKeyTable {
  partner_id: string;
  key_hash: string;
  request_hash: string;
  submission_id: string;
  job_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface ResultTable {
  id: string;
  tenant_id: string;
  submission_id: string;
  bundle: PackedJson;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ArtifactTable {
  id: string;
  tenant_id: string;
  submission_id: string;
  result_id: string;
  type: string;
  availability: string;
  content_type: string | null;
  file_name: string | null;
  byte_size: number | null;
  sha256: string | null;
  generated_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ArtifactContentTable {
  artifact_id: string;
  body: Buffer;
}

export interface WebhookEndpointTable {
  partner_id: string;
  tenant_id: string;
  url: string;
  /** Receiver API key, sealed with the secrets key (`secret-box.ts`). */
  api_key_sealed: string | null;
  api_key_header: string | null;
  /** `enabled` or `disabled` (after failing for WEBHOOK_DISABLE_AFTER; `0012_self_service`). */
  status: ColumnType<string, string | undefined, string>;
  disabled_at: ColumnType<string | Date | null, string | null | undefined, string | null>;
  disabled_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** The first failed attempt since the last delivered one; null while deliveries succeed. */
  failing_since: ColumnType<string | Date | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookSecretTable {
  id: string;
  partner_id: string;
  secret_sealed: string;
  activates_at: Timestamp;
  created_at: Timestamp;
}

export interface WebhookEventTable {
  id: string;
  tenant_id: string;
  partner_id: string;
  result_id: string;
  event_type: string;
  /** The exact JSON bytes every attempt sends. */
  body: string;
  status: string;
  /** Why a failed event failed: `no_endpoint` or `attempts_exhausted` (`0012_self_service`). */
  failure_reason: ColumnType<string | null, string | null | undefined, string | null>;
  delivered_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /**
   * The event's place in the test events stream (`0020_listen_position`): the inserting
   * transaction's `xid8` on PostgreSQL (the column's default; read as text), a number from
   * `listen_counter` on SQLite. Null for events made before the migration.
   */
  listen_position: ColumnType<string | number | null, number | undefined, never>;
}

/** SQLite only: the last number given as an event's `listen_position` (one row). */
export interface ListenCounterTable {
  id: number;
  position: number;
}

export interface WebhookAttemptTable {
  delivery_id: string;
  event_id: string;
  partner_id: string;
  attempt: number;
  url: string;
  started_at: Timestamp;
  latency_ms: number;
  status_code: number | null;
  error_class: string | null;
  outcome: string;
  /** `delivery`, or `listen` for an answer `healthspan listen` reported (`0012_self_service`). */
  kind: ColumnType<string, string | undefined, string>;
  /** The first 1 KiB of the receiver's answer as text, control characters removed. */
  response_snippet: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A recovery of a window of failed or held events (`0012_self_service`). */
export interface WebhookRecoveryTable {
  id: string;
  tenant_id: string;
  since: Timestamp;
  until: NullableTimestamp;
  event_count: number;
  created_at: Timestamp;
}

export interface WebhookRecoveryEventTable {
  recovery_id: string;
  event_id: string;
}

/** An erasure of one subject's submissions (`0009_lifecycle`). */
export interface ErasureTable {
  id: string;
  tenant_id: string;
  subject_id: string;
  partner_subject_sealed: string;
  status: string;
  /** Submissions whose erasure job has not finished yet. */
  remaining: number;
  submissions: number;
  results: number;
  artifacts: number;
  requested_at: Timestamp;
  completed_at: NullableTimestamp;
  /** The ledger's `completed` entry of this erasure, when the ledger held it first (a replay; `0026`). */
  ledger_completed_seq: number | null;
}

/** The database's identity and its position in the erasure ledger (`0021_erasure_ledger`): one row. */
export interface ErasureLedgerStateTable {
  id: number;
  store_id: string;
  applied_seq: number;
  head: string;
  updated_at: Timestamp;
  /** A replay of the ledger moved the position and its erasures have not all completed (`0026`). */
  replay_since: NullableTimestamp;
}

/** The append-only audit trail (`0009_lifecycle`): never health data, keys or subject ids. */
export interface AuditEventTable {
  id: string;
  tenant_id: string;
  occurred_at: Timestamp;
  action: string;
  resource_type: string;
  resource_id: string;
  actor_type: string;
  /** The console session that acted (`0017_console_actor`); null for every other actor. */
  actor_id: string | null;
  actor_key_id: string | null;
  request_id: string;
  correlation_id: string | null;
  outcome: string;
}

/** A one-time console sign-in link (`0016_console_sessions`): its token only as a hash. */
export interface ConsoleLinkTable {
  id: string;
  token_hash: string;
  tenant_id: string;
  key_id: string | null;
  scope: string;
  ttl_seconds: number;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

/** A console session (`0016_console_sessions`): its cookie only as a hash. */
export interface ConsoleSessionTable {
  id: string;
  secret_hash: string;
  link_id: string;
  tenant_id: string;
  key_id: string | null;
  scope: string;
  mode: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  ended_at: NullableTimestamp;
  ended_reason: string | null;
}

export interface Database {
  console_links: ConsoleLinkTable;
  console_sessions: ConsoleSessionTable;
  erasures: ErasureTable;
  erasure_ledger_state: ErasureLedgerStateTable;
  audit_events: AuditEventTable;
  tenants: TenantTable;
  partners: PartnerTable;
  api_keys: ApiKeyTable;
  auth_state: AuthStateTable;
  submissions: SubmissionTable;
  jobs: JobTable;
  job_attempts: JobAttemptTable;
  idempotency_keys: IdempotencyKeyTable;
  results: ResultTable;
  artifacts: ArtifactTable;
  artifact_contents: ArtifactContentTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_secrets: WebhookSecretTable;
  webhook_events: WebhookEventTable;
  listen_counter: ListenCounterTable;
  webhook_attempts: WebhookAttemptTable;
  webhook_recoveries: WebhookRecoveryTable;
  webhook_recovery_events: WebhookRecoveryEventTable;
}
