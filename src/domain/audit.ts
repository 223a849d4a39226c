/**
 * What the audit trail records (docs/data-lifecycle.md): one action per thing done to an account's
 * data or credentials, by whom. Never health data, a partner's subject reference, a key or a
 * secret: resources are named by the service's own ids.
 */
export const AUDIT_ACTIONS = [
  'submission.created',
  'submission.replayed',
  'submission.read',
  'submission.expired',
  'result.read',
  'result.exported',
  'artifact.downloaded',
  'subject.erasure_requested',
  'subject.erased',
  'key.created',
  'key.revoked',
  'tenant.deactivated',
  'tenant.activated',
  'webhook.endpoint_set',
  'webhook.secret_rotated',
  'webhook.redelivered',
  // The partner's self-service API (issue 30): reads of lists and events, and endpoint changes.
  'submission.listed',
  'event.listed',
  'event.read',
  'webhook.recovered',
  'recovery.read',
  'webhook.endpoint_read',
  'webhook.endpoint_deleted',
  'webhook.endpoint_enabled',
  'webhook.endpoint_disabled',
  'webhook.listen_started',
  // The partner console (issue 31): links asked for, sign-ins and sign-outs.
  'console.link_created',
  'console.signed_in',
  'console.signed_out',
  // Backup and restore (issue 39): the account's data went back to a backup, and the erasures
  // made since were replayed; an operator accepted a lost or damaged erasure ledger.
  'backup.restored',
  'erasures.replayed',
  'erasures.ledger_overridden',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_RESOURCE_TYPES = [
  'submission',
  'result',
  'artifact',
  'erasure',
  'api_key',
  'tenant',
  'webhook_endpoint',
  'webhook_event',
  'webhook_recovery',
  'console_session',
] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

export const AUDIT_ACTOR_TYPES = [
  'api_key',
  'operator',
  'system',
  'download_link',
  'console_session',
] as const;

/**
 * Who acted: a partner's API key (by its id, never the key), an operator, the service, a signed
 * link, or a console session: `id` is the session's, `keyId` the key that asked for its link
 * (none for an operator's link).
 */
export interface AuditActor {
  type: (typeof AUDIT_ACTOR_TYPES)[number];
  /** The acting session's id (`console_session` only). */
  id?: string;
  keyId?: string;
}

/** The actor and the request (or command) an action came from. */
export interface AuditOrigin {
  actor: AuditActor;
  requestId: string;
  correlationId?: string | null;
}

export const AUDIT_OUTCOMES = ['success'] as const;

/** One recorded action, as the API and the CLI show it. */
export interface AuditEvent {
  eventId: string;
  occurredAt: string;
  tenantId: string;
  action: AuditAction;
  resourceType: AuditResourceType;
  resourceId: string;
  actor: AuditActor;
  requestId: string;
  correlationId?: string;
  outcome: (typeof AUDIT_OUTCOMES)[number];
}
