import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  type ConsoleBrowserSetup,
  enter,
  signedInContext,
  startConsoleBrowser,
  tabTo,
} from '../helpers/console-browser.js';
import { waitUntil } from '../helpers/pipeline.js';
import { TestReceiver } from '../helpers/receiver.js';
import {
  bodyFor,
  getJson,
  postSubmission,
  type TestAccount,
  type TestService,
  testKeyFor,
} from '../helpers/service.js';

/**
 * Issue 31's "done when", as a support person does it: given a link, find the failed submission,
 * read why it failed, re-send a completed one's callback and download its report; keyboard only,
 * axe-clean at every step, in real Chromium.
 */

const DEADLINE = 60_000;
const receiver = new TestReceiver();
let browser: Browser;
let service: TestService;
let sandbox: TestAccount;

async function finalStatus(submissionId: string): Promise<string> {
  return waitUntil(
    async () => {
      const r = await getJson(service, `/v1/submissions/${submissionId}`, { 'x-api-key': sandbox.apiKey });
      const status = String(r.json.status);
      return ['completed', 'failed'].includes(status) ? status : undefined;
    },
    DEADLINE,
    `submission ${submissionId} to finish`,
  );
}

async function submit(reference: string): Promise<string> {
  const body = bodyFor(sandbox, (b) => {
    b.partnerSubmissionId = reference;
  });
  const accepted = await postSubmission(service, body, { apiKey: sandbox.apiKey });
  expect(accepted.status).toBe(202);
  return String(accepted.json.submissionId);
}

let setup: ConsoleBrowserSetup | undefined;

beforeAll(async () => {
  const url = await receiver.start();
  setup = await startConsoleBrowser({
    RATE_LIMIT_PER_MINUTE: '0',
    JOB_MAX_ATTEMPTS: '2',
    JOB_RETRY_BASE_MS: '10',
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0s',
  });
  ({ browser, service } = setup);
  sandbox = await testKeyFor(service, setup.account);
  const set = await fetch(`${service.url}/v1/webhook-endpoint`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
    body: JSON.stringify({ url: `${url}/hooks` }),
  });
  expect(set.status).toBeLessThan(300);
  const failing = await submit('simulate:processing_failure-1');
  const fine = await submit('visit-0042');
  expect(await finalStatus(failing)).toBe('failed');
  expect(await finalStatus(fine)).toBe('completed');
});

afterAll(async () => {
  await setup?.close();
  await receiver.stop();
});

/** Filters the submission list by a status, with the keyboard (a select answers to typing). */
async function filterByStatus(page: Page, label: string): Promise<void> {
  await tabTo(page, 'Submissions');
  await enter(page);
  await page.locator('#f-status').focus();
  await page.keyboard.type(label);
  await tabTo(page, 'Find submissions');
  await enter(page);
  expect(await axeViolations(page)).toEqual([]);
}

describe('a support person in the console', () => {
  it('finds the failed submission and why, re-sends a callback and downloads the report, by keyboard', async () => {
    const { context, page } = await signedInContext(browser, service, sandbox.apiKey, { scope: 'manage' });
    expect(await axeViolations(page)).toEqual([]);

    await filterByStatus(page, 'Processing failed');
    await tabTo(page, 'simulate:processing_failure-1');
    await enter(page);
    await expect(page.getByText('What went wrong').first().isVisible()).resolves.toBe(true);
    const reason = (await page.locator('dd.error').first().textContent())?.trim() ?? '';
    expect(reason.length).toBeGreaterThan(10);
    expect(reason).not.toMatch(/Error:|at .*\.ts|[A-Z]{3,}_[A-Z]{3,}/);
    expect(await axeViolations(page)).toEqual([]);

    await filterByStatus(page, 'Completed');
    await tabTo(page, 'visit-0042');
    await enter(page);
    const before = receiver.deliveries.length;
    await tabTo(page, 'Send the callback again');
    await enter(page);
    await expect(page.getByRole('status').getByText('being sent again').isVisible()).resolves.toBe(true);
    await waitUntil(async () => receiver.deliveries.length > before, DEADLINE, 'the callback sent again');
    expect(await axeViolations(page)).toEqual([]);

    // The link is a fresh signed download URL: Chromium opens the PDF it answers with.
    const href = await page.getByRole('link', { name: 'Download Report (PDF)' }).getAttribute('href');
    await tabTo(page, 'Download Report (PDF)');
    const [answer] = await Promise.all([
      page.waitForResponse((res) => res.url() === new URL(String(href), service.url).href),
      page.keyboard.press('Enter'),
    ]);
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toBe('application/pdf');
    // Chromium's PDF viewer stands in for the body it shows: the same link's bytes, fetched.
    const bytes = Buffer.from(await (await fetch(answer.url())).arrayBuffer());
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await context.close();
  });
});
