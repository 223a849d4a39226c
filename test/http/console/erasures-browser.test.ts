import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  type ConsoleBrowserSetup,
  enter,
  heading,
  shot,
  signedInContext,
  startConsoleBrowser,
  tabTo,
  tabToField,
} from '../../helpers/console-browser.js';
import { waitUntil } from '../../helpers/pipeline.js';
import { bodyFor, postSubmission, type TestAccount, type TestService } from '../../helpers/service.js';

/**
 * The console's Erasures page in real Chromium (issue 31): request an erasure with the keyboard
 * alone, the subject reference typed twice (a mismatch refused first), follow its progress until
 * it completes, axe-core clean after every step; every erasures page also loads with JavaScript
 * off.
 */

let browser: Browser;
let service: TestService;
let account: TestAccount;

let setup: ConsoleBrowserSetup | undefined;

beforeAll(async () => {
  setup = await startConsoleBrowser();
  ({ browser, service, account } = setup);
});

afterAll(async () => {
  await setup?.close();
});

async function subjectWithSubmission(): Promise<string> {
  const subject = `patient-${randomUUID().slice(0, 8)}`;
  const res = await postSubmission(
    service,
    bodyFor(account, (b) => {
      b.partnerSubjectId = subject;
    }),
    { apiKey: account.apiKey },
  );
  expect(res.status).toBe(202);
  return subject;
}

describe('Erasures in Chromium', () => {
  it('requests an erasure after retyping the reference and follows it to completion, by keyboard, axe-clean at each step', async () => {
    const subject = await subjectWithSubmission();
    const { context, page } = await signedInContext(browser, service, account.apiKey, { scope: 'manage' });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    await tabTo(page, 'Erasures');
    await enter(page);
    expect(new URL(page.url()).pathname).toBe('/console/erasures');
    expect(await axeViolations(page)).toEqual([]);

    await tabToField(page, 'e-subject');
    await page.keyboard.type(subject);
    await enter(page);
    expect(await heading(page, 'Confirm the erasure')).toBe(true);
    expect(page.url()).not.toContain(subject);
    expect(await axeViolations(page)).toEqual([]);

    // A slip on the second typing: refused in plain words, on the field.
    await tabToField(page, 'e-again');
    await page.keyboard.type(`${subject}1`);
    await enter(page);
    expect(await heading(page, 'Confirm the erasure')).toBe(true);
    await expect(page.locator('#e-again-error').textContent()).resolves.toContain('are not the same');
    await expect(page.locator('#e-again').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await axeViolations(page)).toEqual([]);

    await tabToField(page, 'e-again');
    await page.keyboard.type(subject);
    await enter(page);
    expect(await heading(page, 'Erasure')).toBe(true);
    expect(new URL(page.url()).pathname).toMatch(/^\/console\/erasures\/[0-9a-f-]{36}$/);
    expect(await axeViolations(page)).toEqual([]);

    // Its progress: the page shows the erasure as the API has it, until it completes.
    await waitUntil(
      async () => {
        await page.reload();
        return (await page.locator('.badge.status-completed').count()) > 0;
      },
      60_000,
      'erasure completed',
    );
    await expect(
      page.getByText('Submissions erased').locator('xpath=following-sibling::dd[1]').textContent(),
    ).resolves.toBe('1');
    expect(await axeViolations(page)).toEqual([]);

    await tabTo(page, 'Back to the erasures');
    await enter(page);
    const row = page.getByRole('row').nth(1);
    await expect(row.getByRole('cell').nth(0).textContent()).resolves.toBe(subject);
    await expect(row.getByRole('cell').nth(1).textContent()).resolves.toBe('Completed');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'erasures');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('every erasures page loads with JavaScript off (the request included), and passes axe', async () => {
    const subject = await subjectWithSubmission();
    const off = await signedInContext(browser, service, account.apiKey, { javaScriptEnabled: false });
    const read = await signedInContext(browser, service, account.apiKey, { scope: 'read' });
    await off.page.goto(`${service.url}/console/erasures`);
    await off.page.getByLabel('Subject reference', { exact: true }).fill(subject);
    await off.page.getByRole('button', { name: 'Continue' }).click();
    await off.page.getByLabel('Subject reference, again').fill(subject);
    await off.page.getByRole('button', { name: 'Erase this subject' }).click();
    expect(await heading(off.page, 'Erasure')).toBe(true);
    const path = new URL(off.page.url()).pathname;
    for (const [where, title] of [
      ['/console/erasures', 'Erasures'],
      [path, 'Erasure'],
      ['/console/erasures/00000000-0000-4000-8000-000000000000', 'Not found'],
    ] as const) {
      await off.page.goto(`${service.url}${where}`);
      expect([where, await heading(off.page, title)]).toEqual([where, true]);
      // The read session: the same pages without the request form.
      await read.page.goto(`${service.url}${where}`);
      expect(await read.page.getByRole('button', { name: 'Continue' }).count()).toBe(0);
      expect([where, await axeViolations(read.page)]).toEqual([where, []]);
    }
    await off.context.close();
    await read.context.close();
  });
});
