import type { AuditAction, AuditActor, AuditResourceType } from '../../../domain/audit.js';

/** Each recorded action in plain words, as the audit trail page shows it. */
export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  'submission.created': 'Submission received',
  'submission.replayed': 'Submission sent again (same idempotency key)',
  'submission.read': 'Submission viewed',
  'submission.expired': 'Submission removed after its retention period',
  'result.read': 'Result viewed',
  'result.exported': 'Result exported (FHIR)',
  'artifact.downloaded': 'Report downloaded',
  'subject.erasure_requested': 'Erasure of a subject requested',
  'subject.erased': 'Subject erased',
  'key.created': 'API key created',
  'key.revoked': 'API key revoked',
  'tenant.deactivated': 'Account deactivated',
  'tenant.activated': 'Account activated',
  'webhook.endpoint_set': 'Callback URL set',
  'webhook.secret_rotated': 'Callback signing secret rotated',
  'webhook.redelivered': 'Callback sent again',
  'submission.listed': 'Submission list viewed',
  'event.listed': 'Callback event list viewed',
  'event.read': 'Callback event viewed',
  'webhook.recovered': 'Failed callbacks of a time window sent again',
  'recovery.read': 'Callback recovery viewed',
  'webhook.endpoint_read': 'Callback settings viewed',
  'webhook.endpoint_deleted': 'Callback URL removed',
  'webhook.endpoint_enabled': 'Callback URL enabled',
  'webhook.endpoint_disabled': 'Callback URL disabled',
  'webhook.listen_started': 'Test event stream opened',
  'console.link_created': 'Console sign-in link made',
  'console.signed_in': 'Signed in to the console',
  'console.signed_out': 'Signed out of the console',
  'backup.restored': 'Account data restored from a backup',
  'erasures.replayed': 'Erasure carried out again after a restore',
  'erasures.ledger_overridden': 'Erasure ledger replaced by the operator',
};

export const AUDIT_RESOURCE_LABELS: Record<AuditResourceType, string> = {
  submission: 'Submission',
  result: 'Result',
  artifact: 'Report',
  erasure: 'Erasure',
  api_key: 'API key',
  tenant: 'Account',
  webhook_endpoint: 'Callback URL',
  webhook_event: 'Callback event',
  webhook_recovery: 'Callback recovery',
  console_session: 'Console session',
};

/**
 * Who acted, in plain words: a key by its first characters as the keys page shows them (never the
 * key itself), or by the start of its id when it is not one of the account's.
 */
export function actorLabel(actor: AuditActor, prefixes: ReadonlyMap<string, string>): string {
  const prefix = actor.keyId ? prefixes.get(actor.keyId) : undefined;
  const key = actor.keyId ? ` ${prefix ? `${prefix}…` : `id ${actor.keyId.slice(0, 8)}`}` : '';
  switch (actor.type) {
    case 'api_key':
      return `API key${key}`;
    case 'operator':
      return 'Healthspan operator';
    case 'system':
      return 'The service';
    case 'download_link':
      return 'Signed download link';
    case 'console_session':
      return key
        ? `Console session (opened with key${key})`
        : "Console session (opened by an operator's link)";
  }
}
