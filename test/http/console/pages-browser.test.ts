import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../helpers/chromium.js';
import { consoleLink } from '../../helpers/console.js';
import {
  axeViolations,
  enter,
  freePort,
  shot,
  signedInContext as signedInWith,
  tabTo,
} from '../../helpers/console-browser.js';
import { waitUntil } from '../../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  getJson,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
} from '../../helpers/service.js';

/**
 * The console in real Chromium (issue 31): signed in with a link, walked with the keyboard alone,
 * axe-core (WCAG 2.2 AA tags, no rule disabled) after every step with zero violations, every page
 * also loaded with JavaScript off. `npm run docs:console` keeps the screenshots it takes.
 */

let browser: Browser;
let service: TestService;
let account: TestAccount;
let completedId: string;

beforeAll(async () => {
  const port = await freePort();
  service = await startTestService({ PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
  account = await createAccount(service, { name: 'Harbour Clinic' });
  const accepted = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
  completedId = String(accepted.json.submissionId);
  await waitUntil(async () => {
    const res = await getJson(service, `/v1/submissions/${completedId}`, { 'x-api-key': account.apiKey });
    return res.json.status === 'completed';
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

function signedInContext(javaScriptEnabled: boolean, scope: 'read' | 'manage' = 'manage') {
  return signedInWith(browser, service, account.apiKey, { javaScriptEnabled, scope });
}

describe('the console in Chromium', () => {
  it('signs in with a link and walks overview → submissions → a submission → sign-out by keyboard, axe-clean at each step', async () => {
    const { context, page } = await signedInContext(true);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'overview');

    await tabTo(page, 'Skip to content');
    await tabTo(page, 'Submissions');
    await enter(page);
    expect(new URL(page.url()).pathname).toBe('/console/submissions');
    expect(await axeViolations(page)).toEqual([]);

    await tabTo(page, 'Find submissions');
    await enter(page);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'submissions');

    await tabTo(page, 'sub-000123');
    await enter(page);
    expect(new URL(page.url()).pathname).toBe(`/console/submissions/${completedId}`);
    await page.getByRole('heading', { level: 2, name: 'Result' }).waitFor();
    // The html report, previewed in its sandboxed frame (served by the console, framed by it alone).
    await page.frameLocator('iframe.preview').getByRole('heading', { level: 1 }).first().waitFor();
    expect(await axeViolations(page)).toEqual([]);
    // The frame paints only once it has been in view: a full-page shot does not scroll.
    await page.locator('iframe.preview').scrollIntoViewIfNeeded();
    await shot(page, 'submission');

    await tabTo(page, 'Sign out');
    await enter(page);
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('every page loads with JavaScript off, and the same pages pass axe', async () => {
    const off = await signedInContext(false, 'read');
    const on = await signedInContext(true, 'read');
    for (const [path, heading] of [
      ['/console/', 'Overview'],
      ['/console/submissions?status=completed', 'Submissions'],
      ['/console/submissions?receivedAfter=yesterday', 'Submissions'],
      [`/console/submissions/${completedId}`, 'Submission sub-000123'],
      ['/console/submissions/00000000-0000-4000-8000-000000000000', 'Not found'],
    ] as const) {
      // axe runs in the page's JavaScript: with it off, the page is checked as it shows; the
      // same page, JavaScript on, is checked by axe (the script only trims empty filter fields).
      await off.page.goto(`${service.url}${path}`);
      await expect(off.page.getByRole('heading', { level: 1, name: heading }).isVisible()).resolves.toBe(
        true,
      );
      await on.page.goto(`${service.url}${path}`);
      expect([path, await axeViolations(on.page)]).toEqual([path, []]);
    }
    await off.context.close();
    await on.context.close();
  });

  it('a new link opened in a signed-in browser ends the session it had: its old cookie opens nothing', async () => {
    const { context, page } = await signedInContext(true, 'read');
    const [old] = await context.cookies();
    expect(old?.name).toBe('healthspan_console');
    const link = await consoleLink(service, account.apiKey, { scope: 'read' });
    await page.goto(String(link.json.url));
    expect(new URL(page.url()).pathname).toBe('/console/');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const [fresh] = await context.cookies();
    expect(fresh?.value).not.toBe(old!.value);
    // The old cookie, replayed from another browser (a copy left behind), is signed out.
    const replay = await browser.newContext();
    await replay.addCookies([old!]);
    const other = await replay.newPage();
    const res = await other.goto(`${service.url}/console/`);
    expect(res?.status()).toBe(401);
    await expect(other.getByRole('heading', { level: 1, name: 'Signed out' }).isVisible()).resolves.toBe(
      true,
    );
    await replay.close();
    await context.close();
  });
});
