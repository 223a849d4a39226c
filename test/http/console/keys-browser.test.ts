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
} from '../../helpers/console-browser.js';
import { getJson, type TestAccount, type TestService } from '../../helpers/service.js';

/**
 * The console's API keys and audit trail pages in real Chromium (issue 31): create a key (shown
 * once, copied with the keyboard), revoke it after the confirmation step, read the audit trail,
 * with the keyboard alone and axe-core clean after every step; every page also loads with
 * JavaScript off, where the key is plain selectable text.
 */

// What the page.evaluate callback uses in Chromium (tsconfig has no DOM lib of its own).
declare const navigator: { clipboard: { readText(): Promise<string> } };

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

describe('API keys and the audit trail in Chromium', () => {
  it('creates a key (shown once, copied), revokes it and finds both in the audit trail, by keyboard, axe-clean at each step', async () => {
    const { context, page } = await signedInContext(browser, service, account.apiKey, { scope: 'manage' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    await tabTo(page, 'API keys');
    await enter(page);
    expect(new URL(page.url()).pathname).toBe('/console/keys');
    expect(await axeViolations(page)).toEqual([]);

    await tabTo(page, 'Create a key');
    await enter(page);
    const secret = page.locator('#new-key-value');
    const apiKey = (await secret.textContent())?.trim() ?? '';
    expect(apiKey).toMatch(/^hs_live_[A-Za-z0-9_-]{43}$/);
    expect((await getJson(service, '/v1/audit-events', { 'x-api-key': apiKey })).status).toBe(200);
    expect(await axeViolations(page)).toEqual([]);

    await tabTo(page, 'Copy the key');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'keys');

    // Newest first: the first "Revoke" is the new key's.
    await tabTo(page, 'Revoke');
    await enter(page);
    expect(await heading(page, 'Revoke a key')).toBe(true);
    await page.getByText(apiKey.slice(0, 14)).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await tabTo(page, 'Revoke this key');
    await enter(page);
    await page.getByRole('status').filter({ hasText: 'The key was revoked.' }).waitFor();
    expect(await page.content()).not.toContain(apiKey);
    expect((await getJson(service, '/v1/audit-events', { 'x-api-key': apiKey })).status).toBe(401);
    expect(await axeViolations(page)).toEqual([]);

    await tabTo(page, 'Audit trail');
    await enter(page);
    expect(await heading(page, 'Audit trail')).toBe(true);
    const rows = page.getByRole('row');
    await expect(rows.nth(1).getByRole('cell').nth(1).textContent()).resolves.toBe('API key revoked');
    await expect(rows.nth(2).getByRole('cell').nth(1).textContent()).resolves.toBe('API key created');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'audit');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('every keys and audit page loads with JavaScript off (the key as selectable text), and passes axe', async () => {
    const off = await signedInContext(browser, service, account.apiKey, { javaScriptEnabled: false });
    const on = await signedInContext(browser, service, account.apiKey, { scope: 'read' });
    await off.page.goto(`${service.url}/console/keys`);
    await off.page.getByRole('button', { name: 'Create a key' }).click();
    const apiKey = (await off.page.locator('#new-key-value').textContent())?.trim() ?? '';
    expect(apiKey).toMatch(/^hs_live_/);
    // No script: no copy button, the key selectable as it is.
    expect(await off.page.getByRole('button', { name: 'Copy the key' }).count()).toBe(0);
    const keyId = (
      await off.page.getByRole('link', { name: `Revoke key ${apiKey.slice(0, 14)}` }).getAttribute('href')
    )
      ?.split('/')
      .at(-2);
    for (const [path, title] of [
      ['/console/keys', 'API keys'],
      [`/console/keys/${keyId}/revoke`, 'Revoke a key'],
      ['/console/keys/00000000-0000-4000-8000-000000000000/revoke', 'Not found'],
      ['/console/audit', 'Audit trail'],
      ['/console/audit?limit=2', 'Audit trail'],
      ['/console/audit?limit=0', 'Audit trail'],
    ] as const) {
      await off.page.goto(`${service.url}${path}`);
      expect([path, await heading(off.page, title)]).toEqual([path, true]);
      // The read session: its own view of the same pages (no buttons; a refusal for the revoke step).
      await on.page.goto(`${service.url}${path}`);
      expect([path, await axeViolations(on.page)]).toEqual([path, []]);
    }
    await off.context.close();
    await on.context.close();
  });
});
