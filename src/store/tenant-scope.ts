import type { Clock } from '../clock.js';
import type { AuditOrigin } from '../domain/audit.js';
import type { Driver } from './driver.js';
import { accountActivity, callbackHealth } from './repositories/console-activity.js';
import { TenantEventResend } from './repositories/event-resend.js';
import { TenantEvents } from './repositories/events.js';
import { TenantListen } from './repositories/listen.js';
import { referencesOf, resourcesOfReferences } from './repositories/references.js';
import { TenantResults } from './repositories/results.js';
import { TenantSubmissionList } from './repositories/submission-list.js';
import { TenantSubmissions } from './repositories/submissions.js';
import { TenantArtifacts } from './repositories/tenant-artifacts.js';
import { TenantKeys } from './repositories/tenant-keys.js';
import { TenantWebhookEndpoint } from './repositories/webhook-endpoint.js';
import type { AuditEntry } from './rows.js';
import type { SystemStore } from './system-store.js';
import type { TenantAccess } from './tenant-access.js';

/** What each area of an account's access is built from. */
interface Scope {
  system: SystemStore;
  driver: Driver;
  clock: Clock;
  tenantId: string;
  /** A read is recorded before it is answered: no answer without its audit event. */
  recordRead(entry: AuditEntry, origin: AuditOrigin): Promise<void>;
}

/**
 * The `TenantAccess` of one account: every area's queries carry the account's predicate, and
 * every read that answers with data records its audit event first. One function per area.
 */
export function tenantScope(deps: Omit<Scope, 'recordRead'>): TenantAccess {
  const { system, tenantId, clock } = deps;
  const scope: Scope = {
    ...deps,
    recordRead: (entry, origin) =>
      // Commit unit: one insert through `trx`.
      system.batcher.submit((trx) => system.audit.record(trx, tenantId, entry, origin, clock()), {
        urgent: true,
      }),
  };
  return {
    tenantId,
    submissions: submissionsOf(scope),
    results: resultsOf(scope),
    artifacts: artifactsOf(scope),
    erasures: erasuresOf(scope),
    audit: {
      list: async ({ partnerSubmissionId, partnerSubjectId, ...query }) => {
        const search = { partnerSubmissionId, partnerSubjectId };
        const resourceIds =
          partnerSubmissionId === undefined && partnerSubjectId === undefined
            ? undefined
            : await resourcesOfReferences(deps.driver.db, tenantId, search);
        return system.audit.list(tenantId, { ...query, resourceIds });
      },
      references: (resources) => referencesOf(deps.driver.db, tenantId, resources),
    },
    keys: new TenantKeys(deps.driver.db, tenantId, system.accounts),
    webhookEndpoint: new TenantWebhookEndpoint(deps.driver, tenantId, {
      committer: system.batcher,
      webhooks: system.webhooks,
      audit: system.audit,
    }),
    activity: (since, limit) => accountActivity(deps.driver.db, tenantId, since, limit),
    callbackHealth: () => callbackHealth(deps.driver.db, tenantId),
    listen: listenOf(scope),
    ...eventsOf(scope),
  };
}

function eventsOf({
  system,
  driver,
  tenantId,
  recordRead,
}: Scope): Pick<TenantAccess, 'events' | 'recoveries'> {
  const events = new TenantEvents(driver, tenantId, recordRead);
  const resend = new TenantEventResend(system, driver, tenantId, recordRead);
  return {
    events: {
      list: (query, origin) => events.list(query, origin),
      get: (eventId, origin) => events.get(eventId, origin),
      ofSubmission: (submissionId, origin) => events.ofSubmission(submissionId, origin),
      redeliver: (eventId, plan, origin) => resend.redeliver(eventId, plan, origin),
    },
    recoveries: {
      start: (window, plan, origin) => resend.recover(window, plan, origin),
      get: (recoveryId, origin) => resend.recovery(recoveryId, origin),
    },
  };
}

function submissionsOf({ system, driver, tenantId, recordRead }: Scope): TenantAccess['submissions'] {
  const submissions = new TenantSubmissions(driver, tenantId);
  const list = new TenantSubmissionList(driver, tenantId, recordRead);
  return {
    get: async (submissionId, origin) => {
      const found = await submissions.get(submissionId);
      if (found) {
        await recordRead(
          { action: 'submission.read', resourceType: 'submission', resourceId: submissionId },
          origin,
        );
      }
      return found;
    },
    ingest: (command) => system.ingest.ingest({ ...command, tenantId }),
    replayed: (submissionId, origin) => system.ingest.recordReplay(tenantId, submissionId, origin),
    list: (query, origin) => list.list(query, origin),
  };
}

function resultsOf({ driver, tenantId, recordRead }: Scope): TenantAccess['results'] {
  const results = new TenantResults(driver.db, tenantId);
  return {
    get: async (resultId, origin) => {
      const found = await results.get(resultId);
      if (found)
        await recordRead({ action: 'result.read', resourceType: 'result', resourceId: resultId }, origin);
      return found;
    },
    locate: (resultId) => results.locate(resultId),
    exportSource: async (resultId, origin) => {
      const found = await results.exportSource(resultId);
      if (found)
        await recordRead({ action: 'result.exported', resourceType: 'result', resourceId: resultId }, origin);
      return found;
    },
  };
}

function artifactsOf({ system, driver, tenantId, recordRead }: Scope): TenantAccess['artifacts'] {
  const artifacts = new TenantArtifacts(driver.db, tenantId, {
    bytes: system.artifacts,
    pipeline: system.pipeline,
    results: system.results,
  });
  return {
    downloadable: (artifactId) => artifacts.downloadable(artifactId),
    recreation: (artifactId) => artifacts.recreation(artifactId),
    restore: (artifactId, body) => artifacts.restore(artifactId, body),
    downloaded: (artifactId, origin) =>
      recordRead({ action: 'artifact.downloaded', resourceType: 'artifact', resourceId: artifactId }, origin),
  };
}

function erasuresOf({ system, tenantId, clock }: Scope): TenantAccess['erasures'] {
  return {
    request: async (partnerSubjectId, origin) => {
      // Commit unit: decides from the subject's submissions read in `trx`; a second attempt
      // makes a new erasure id (the first one's rows were rolled back) and reuses the
      // sealing key file the first one may have created; the ledger entry the first one
      // appended is reused (`memo`), with its erasure id.
      const memo = {};
      const { erasure, enqueued } = await system.batcher.submit(
        (trx) => system.erasures.request(trx, tenantId, partnerSubjectId, origin, clock(), { memo }),
        // One subject's requests queue behind each other (the same lane on PostgreSQL).
        { urgent: true, lockKey: `erasure:${tenantId}:${partnerSubjectId}` },
      );
      if (enqueued) system.notifier.notify();
      return erasure;
    },
    get: (erasureId) => system.erasures.get(tenantId, erasureId),
    list: (query) => system.erasures.list(tenantId, query),
  };
}

function listenOf({ system, driver, tenantId, recordRead }: Scope): TenantAccess['listen'] {
  const listen = new TenantListen(driver.db, driver.name, tenantId);
  return {
    started: (keyId, origin) =>
      recordRead({ action: 'webhook.listen_started', resourceType: 'api_key', resourceId: keyId }, origin),
    now: () => listen.now(),
    after: (position, limit) => listen.after(position, limit),
    // Commit unit: reads the event and its attempt count in `trx`, one insert through `trx`
    // (kept once by its delivery id).
    recordAnswer: (answer) =>
      system.batcher.submit((trx) => listen.recordAnswer(trx, answer), { urgent: true }),
  };
}
