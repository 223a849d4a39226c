import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { consoleGet, signIn } from './console.js';
import { waitUntil } from './pipeline.js';
import {
  bodyFor,
  errorOf,
  getJson,
  postSubmission,
  type TestAccount,
  type TestService,
  uniqueKey,
} from './service.js';

/**
 * The restore drill's parts, shared by the embedded store's drill (backup create / restore) and
 * PostgreSQL's (pg_dump / pg_restore, then the replay): what a subject sends, how it is waited
 * for, and what must hold once the restored service serves.
 */

/** Strings only one subject carries: its reference, its submission's reference, a free-text value. */
export function subjectStrings(label: string) {
  const tag = randomUUID().replace(/-/g, '');
  return { subject: `subj-${label}-${tag}`, submission: `sub-${label}-${tag}`, lab: `Lab ${label} ${tag}` };
}
export type SubjectStrings = ReturnType<typeof subjectStrings>;

export interface Sent {
  strings: SubjectStrings;
  submissionId: string;
  idempotencyKey: string;
  resultId?: string;
}

const auth = (account: TestAccount) => ({ 'x-api-key': account.apiKey });

export async function send(
  service: TestService,
  account: TestAccount,
  strings: SubjectStrings,
  outputs: string[] = ['score', 'json'],
): Promise<Sent> {
  const idempotencyKey = uniqueKey();
  const res = await postSubmission(
    service,
    bodyFor(account, (b) => {
      b.partnerSubjectId = strings.subject;
      b.partnerSubmissionId = strings.submission;
      b.options.requestedOutputs = outputs;
      b.sourceMetadata.labName = strings.lab;
    }),
    { apiKey: account.apiKey, idempotencyKey },
  );
  expect(res.status).toBe(202);
  return { strings, submissionId: String(res.json.submissionId), idempotencyKey };
}

/** Waits for the submission to complete; its result id. */
export async function completed(service: TestService, account: TestAccount, sent: Sent): Promise<Sent> {
  const detail = await waitUntil(
    async () => {
      const r = await getJson(service, `/v1/submissions/${sent.submissionId}`, auth(account));
      return r.json.status === 'completed' ? r.json : undefined;
    },
    60_000,
    `submission ${sent.submissionId} completed`,
  );
  return { ...sent, resultId: String(detail.resultId) };
}

/** Erases the subject through the API and waits for the erasure to complete. */
export async function eraseSubject(
  service: TestService,
  account: TestAccount,
  subject: string,
): Promise<void> {
  const res = await fetch(`${service.url}/v1/subjects/${encodeURIComponent(subject)}`, {
    method: 'DELETE',
    headers: auth(account),
  });
  expect(res.status).toBe(202);
  const { erasureId } = (await res.json()) as { erasureId: string };
  await waitUntil(
    async () =>
      (await getJson(service, `/v1/erasures/${erasureId}`, auth(account))).json.status === 'completed',
    60_000,
    'the erasure completed',
  );
}

/** A signed download link of the result's json report (its path and query: any port serves it). */
export async function downloadLink(
  service: TestService,
  account: TestAccount,
  resultId: string,
): Promise<string> {
  const result = await getJson(service, `/v1/results/${resultId}`, auth(account));
  expect(result.status).toBe(200);
  const items = (result.json.artifacts as { items: Array<{ type: string; access: { downloadUrl: string } }> })
    .items;
  const json = items.find((i) => i.type === 'json');
  if (!json) throw new Error('no json report');
  const signed = new URL(json.access.downloadUrl);
  return `${signed.pathname}${signed.search}`;
}

/**
 * What a restored service must show: the erased subject gone (ids 404, its link dead, its key's
 * replay 410, nothing of it in the console), the kept one whole and downloadable, and what came
 * after the backup absent.
 */
export async function assertRestored(
  service: TestService,
  account: TestAccount,
  s: { erased: Sent; erasedLink: string; kept: Sent; after: Sent },
): Promise<void> {
  const { erased, kept, after } = s;
  expect((await getJson(service, `/v1/submissions/${erased.submissionId}`, auth(account))).status).toBe(404);
  expect((await getJson(service, `/v1/results/${erased.resultId}`, auth(account))).status).toBe(404);
  expect((await fetch(`${service.url}${s.erasedLink}`)).status).toBe(404);
  const replay = await postSubmission(
    service,
    bodyFor(account, (b) => {
      b.partnerSubjectId = erased.strings.subject;
      b.partnerSubmissionId = erased.strings.submission;
      b.options.requestedOutputs = ['score', 'json'];
      b.sourceMetadata.labName = erased.strings.lab;
    }),
    { apiKey: account.apiKey, idempotencyKey: erased.idempotencyKey },
  );
  expect(replay.status).toBe(410);
  expect(errorOf(replay.json).code).toBe('SUBMISSION_ERASED');

  expect((await getJson(service, `/v1/submissions/${kept.submissionId}`, auth(account))).json.status).toBe(
    'completed',
  );
  const keptDownload = await fetch(
    `${service.url}${await downloadLink(service, account, String(kept.resultId))}`,
  );
  expect(keptDownload.status).toBe(200);
  expect(await keptDownload.text()).toContain(kept.strings.subject);

  expect((await getJson(service, `/v1/submissions/${after.submissionId}`, auth(account))).status).toBe(404);

  const cookie = await signIn(service, account.apiKey);
  const bySubject = (subject: string) =>
    consoleGet(service, `/console/submissions?partnerSubjectId=${encodeURIComponent(subject)}`, cookie);
  const keptList = await bySubject(kept.strings.subject);
  expect(keptList.res.status).toBe(200);
  expect(keptList.text).toContain(`href="/console/submissions/${kept.submissionId}"`);
  const erasedList = await bySubject(erased.strings.subject);
  expect(erasedList.res.status).toBe(200);
  expect(erasedList.text).not.toMatch(/href="\/console\/submissions\/[0-9a-f-]{36}"/);
  expect((await consoleGet(service, `/console/submissions/${erased.submissionId}`, cookie)).res.status).toBe(
    404,
  );
}
