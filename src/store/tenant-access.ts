import type { AuditEvent, AuditOrigin } from '../domain/audit.js';
import type { KeysetPage } from './keyset.js';
import type { AuditQuery } from './repositories/audit.js';
import type { ActivityRecord, CallbackHealthRecord } from './repositories/console-activity.js';
import type {
  ConsoleSessionLookup,
  ConsoleSessionRecord,
  NewConsoleLink,
} from './repositories/console-sessions.js';
import type { ErasureListQuery, ErasureRecord } from './repositories/erasures.js';
import type {
  RecoveryRecord,
  RecoveryStart,
  RecoveryWindow,
  RedeliverOutcome,
  ResendPlan,
} from './repositories/event-resend.js';
import type {
  EventDetailRecord,
  EventListPage,
  EventListQuery,
  SubmissionCallbackRecord,
} from './repositories/events.js';
import type { IngestCommand, IngestResult } from './repositories/ingest.js';
import type { ListenAnswer, ListenEvent, ListenPosition } from './repositories/listen.js';
import type { NamedResource, PartnerReferences, ReferenceSearch } from './repositories/references.js';
import type { ResultExportSource, ResultRecord } from './repositories/results.js';
import type { SubmissionListPage, SubmissionListQuery } from './repositories/submission-list.js';
import type { SubmissionRecord } from './repositories/submissions.js';
import type { ArtifactRecreation, DownloadableArtifact } from './repositories/tenant-artifacts.js';
import type { TenantKeys } from './repositories/tenant-keys.js';
import type { TenantWebhookEndpoint } from './repositories/webhook-endpoint.js';

/**
 * The only part of the store the HTTP layer may import: data access bound to one account
 * (Medplum's `getRepoForLogin`, Svix's `secure_find`). Authentication puts one on each request;
 * every query it runs carries the account's predicate, so a route cannot read or write another
 * account's rows by forgetting one. Unscoped access (`Store.system`) is for workers, the CLI and
 * the authenticator, and never reaches a route.
 */
export interface TenantAccess {
  readonly tenantId: string;
  readonly submissions: {
    /** The submission with its result, counts and jobs, as of one moment; the read is audited. */
    get(submissionId: string, origin: AuditOrigin): Promise<SubmissionRecord | undefined>;
    /**
     * Stores a checked submission with its first job and idempotency claim (group commit), or
     * answers with the claim that holds its key (ingest decides on it).
     */
    ingest(command: TenantIngestCommand): Promise<IngestResult>;
    /** Records (audit) that a request was answered with the submission its key holds. */
    replayed(submissionId: string, origin: AuditOrigin): Promise<void>;
    /** A page of the account's submissions, newest first, metadata only; audited once per page. */
    list(query: SubmissionListQuery, origin: AuditOrigin): Promise<SubmissionListPage>;
  };
  readonly results: {
    /** The result; the read is audited. */
    get(resultId: string, origin: AuditOrigin): Promise<ResultRecord | undefined>;
    /**
     * The named result's id when it is this account's; with none named, the account's most
     * recently completed result's (the test events route).
     */
    locate(resultId: string | undefined): Promise<string | undefined>;
    /** What a standard export (FHIR) of the result is built from; audited as an export. */
    exportSource(resultId: string, origin: AuditOrigin): Promise<ResultExportSource | undefined>;
  };
  readonly artifacts: {
    downloadable(artifactId: string): Promise<DownloadableArtifact | undefined>;
    recreation(artifactId: string): Promise<ArtifactRecreation | undefined>;
    restore(artifactId: string, body: Buffer): Promise<void>;
    /** Records a download (before its bytes are sent). */
    downloaded(artifactId: string, origin: AuditOrigin): Promise<void>;
  };
  readonly erasures: {
    /** Requests the erasure of every submission of the subject (docs/data-lifecycle.md). */
    request(partnerSubjectId: string, origin: AuditOrigin): Promise<ErasureRecord>;
    get(erasureId: string): Promise<ErasureRecord | undefined>;
    /** The account's erasures, newest first (the console's list). */
    list(query: ErasureListQuery): Promise<KeysetPage<ErasureRecord>>;
  };
  readonly audit: {
    /**
     * The account's audit events, newest first; with references, only those about the matching
     * submissions and what derives from them (results, report artifacts, callback events).
     */
    list(query: AuditListQuery): Promise<KeysetPage<AuditEvent>>;
    /**
     * The partner's references of the submissions behind audited resources, by resource id (the
     * console's trail shows them; the trail itself keeps the service's ids only).
     */
    references(resources: readonly NamedResource[]): Promise<Map<string, PartnerReferences>>;
  };
  /**
   * The account's API keys (a live account's with its sandbox's): list, issue, revoke; issuing
   * and revoking are audited (`key.created`, `key.revoked`) as the operator's commands are.
   */
  readonly keys: Pick<TenantKeys, 'list' | 'create' | 'revoke'>;
  /**
   * The callback endpoints of the account's partner credentials (one per credential and mode):
   * read, set, rotate, delete, enable; every change audited in its own transaction.
   */
  readonly webhookEndpoint: Pick<
    TenantWebhookEndpoint,
    'state' | 'set' | 'addSecret' | 'remove' | 'enable' | 'read' | 'credentialFor'
  >;
  /** The account's `result.ready` events and their attempts (`webhooks/events.ts` decides on them). */
  readonly events: {
    /** A page of events, newest first, metadata only; audited once per page (`event.listed`). */
    list(query: EventListQuery, origin: AuditOrigin): Promise<EventListPage>;
    /** The event with its signed body and attempts; the read is audited (`event.read`). */
    get(eventId: string, origin: AuditOrigin): Promise<EventDetailRecord | undefined>;
    /**
     * The callback of a submission's result (its event, last delivery attempt, since when it has
     * been failing); undefined without an event. The read is audited (`event.read`).
     */
    ofSubmission(submissionId: string, origin: AuditOrigin): Promise<SubmissionCallbackRecord | undefined>;
    /** Queues the event's delivery now (audited `webhook.redelivered`), or says why it cannot. */
    redeliver(eventId: string, plan: ResendPlan, origin: AuditOrigin): Promise<RedeliverOutcome>;
  };
  readonly recoveries: {
    /** Queues every failed or held event of the window once (audited `webhook.recovered`). */
    start(window: RecoveryWindow, plan: ResendPlan, origin: AuditOrigin): Promise<RecoveryStart>;
    /** The recovery and its events' statuses now; the read is audited (`recovery.read`). */
    get(recoveryId: string, origin: AuditOrigin): Promise<RecoveryRecord | undefined>;
  };
  /** `healthspan listen` (the test events stream): a test account's events, its answers. */
  readonly listen: {
    /** Records (audit) that a key opened the stream. */
    started(keyId: string, origin: AuditOrigin): Promise<void>;
    /** Where a stream opened now starts: after every event already visible. */
    now(): Promise<ListenPosition>;
    /** Events after a position in stream order, none that a later commit could precede. */
    after(position: ListenPosition, limit: number): Promise<ListenEvent[]>;
    /** Records a reported answer as a `listen` attempt; false when the event is not this account's. */
    recordAnswer(answer: ListenAnswer): Promise<boolean>;
  };
  /** Counts for the console's overview: submissions received since a time and callback outcomes. */
  activity(since: Date, limit: number): Promise<ActivityRecord>;
  /** The overview's "currently failing": the newest delivery attempts and the events waiting after a failure. */
  callbackHealth(): Promise<CallbackHealthRecord>;
}

/**
 * The console's sign-in links and sessions (issue 31). A link or a cookie names no account, so
 * this is looked up by hash alone; the session it finds names the one account (and mode) whose
 * `TenantAccess` the console's pages then get.
 */
export interface ConsoleGateway {
  createLink(link: NewConsoleLink, now: Date, origin: AuditOrigin): Promise<{ linkId: string }>;
  redeem(
    tokenHash: string,
    secretHash: string,
    now: Date,
    requestId: string,
    /** The hash of the session cookie the browser presented: that session ends at this sign-in. */
    presentedHash?: string,
  ): Promise<ConsoleSessionRecord | undefined>;
  find(secretHash: string, now: Date, idleMs: number): Promise<ConsoleSessionLookup>;
  touch(sessionId: string, now: Date): Promise<void>;
  end(sessionId: string, reason: string, now: Date): Promise<void>;
  signOut(session: ConsoleSessionRecord, now: Date, requestId: string): Promise<void>;
  setMode(sessionId: string, mode: ConsoleSessionRecord['mode']): Promise<void>;
  /** The account that holds a live account's mode; undefined for a sandbox not made yet. */
  tenantForMode(liveTenantId: string, mode: ConsoleSessionRecord['mode']): Promise<string | undefined>;
}

/** An ingest command of the account the access is bound to. */
export type TenantIngestCommand = Omit<IngestCommand, 'tenantId'>;

/** How authentication gets the `TenantAccess` of the account a verified key belongs to. */
export interface TenantGateway {
  forTenant(tenantId: string): TenantAccess;
}

/**
 * How a key-less download gets a `TenantAccess`: only for the account that owns the artifact a
 * verified signed link names.
 */
export interface ArtifactGateway {
  /** The access of the artifact's account, or undefined for an artifact that does not exist. */
  forArtifact(artifactId: string): Promise<TenantAccess | undefined>;
}

export { ObjectStoreUnavailableError } from './artifact-store.js';
export type { KeysetPage, KeysetPosition } from './keyset.js';
export { LedgerUnavailableError } from './ledger/errors.js';
export type { KeyListing } from './repositories/accounts.js';
export type { AuditQuery } from './repositories/audit.js';
export type {
  ActivityRecord,
  ActivitySubmission,
  CallbackHealthRecord,
  RecentAttempt,
} from './repositories/console-activity.js';
export type {
  ConsoleScope,
  ConsoleSessionEnd,
  ConsoleSessionLookup,
  ConsoleSessionRecord,
  NewConsoleLink,
} from './repositories/console-sessions.js';
export { sessionOrigin } from './repositories/console-sessions.js';
export type { ErasureListQuery, ErasureRecord } from './repositories/erasures.js';
export type {
  RecoveryRecord,
  RecoveryStart,
  RecoveryWindow,
  RedeliverOutcome,
  ResendPlan,
  ResendRefusal,
} from './repositories/event-resend.js';
export type {
  EventAttemptRecord,
  EventDetailRecord,
  EventListPage,
  EventListQuery,
  EventListRecord,
  SubmissionCallbackRecord,
} from './repositories/events.js';
export type { AcceptedSubmission, HeldClaim, IngestResult } from './repositories/ingest.js';
export type { ListenAnswer, ListenEvent, ListenPosition } from './repositories/listen.js';
export type { StoredSubmission } from './repositories/pipeline.js';
export type { NamedResource, PartnerReferences, ReferenceSearch } from './repositories/references.js';

/** A page of the account's audit trail as a route asks for it: by the partner's references, not ids. */
export type AuditListQuery = Omit<AuditQuery, 'resourceIds'> & ReferenceSearch;
export type { ArtifactRecord, ResultExportSource, ResultRecord } from './repositories/results.js';
export type {
  SubmissionListPage,
  SubmissionListQuery,
  SubmissionListRecord,
} from './repositories/submission-list.js';
export type { JobRecord, SubmissionRecord } from './repositories/submissions.js';
export type { ArtifactRecreation, DownloadableArtifact } from './repositories/tenant-artifacts.js';
export type { KeyCreateOutcome, NewAccountKey } from './repositories/tenant-keys.js';
export type {
  EndpointState,
  EndpointStatus,
  EndpointWrite,
  SecretPolicy,
} from './repositories/webhook-endpoint.js';
export type { SecretRecord } from './repositories/webhooks.js';
