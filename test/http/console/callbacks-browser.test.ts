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
import { completeSubmission, waitUntil } from '../../helpers/pipeline.js';
import { TestReceiver } from '../../helpers/receiver.js';
import { createAccount, getJson, type TestAccount, type TestService } from '../../helpers/service.js';

/**
 * The console's Callbacks pages in real Chromium (issue 31): set the URL, rotate the secret (shown
 * once, copied with the keyboard) and send an event again, with the keyboard alone and axe-core
 * clean after every step; every page also loads with JavaScript off, where the secret is plain
 * selectable text.
 */

// What the page.evaluate callback uses in Chromium (tsconfig has no DOM lib of its own).
declare const navigator: { clipboard: { readText(): Promise<string> } };

const SECRET = /^whsec_[A-Za-z0-9+/=]{20,}$/;
const receiver = new TestReceiver();
let receiverUrl: string;
let browser: Browser;
let service: TestService;
let account: TestAccount;

let setup: ConsoleBrowserSetup | undefined;

beforeAll(async () => {
  receiverUrl = await receiver.start();
  setup = await startConsoleBrowser({ WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_RETRY_SCHEDULE: '0s' });
  ({ browser, service, account } = setup);
});

afterAll(async () => {
  await setup?.close();
  await receiver.stop();
});

async function eventIdOf(owner: TestAccount, resultId: string): Promise<string> {
  return waitUntil(async () => {
    const page = (await getJson(service, '/v1/events', { 'x-api-key': owner.apiKey })).json as {
      items: Array<{ eventId: string; resultId: string; deliveryStatus: string }>;
    };
    return page.items.find((i) => i.resultId === resultId && i.deliveryStatus === 'delivered')?.eventId;
  });
}

describe('the Callbacks pages in Chromium', () => {
  it('sets the URL, rotates the secret (shown once, copied) and redelivers an event, by keyboard, axe-clean at each step', async () => {
    const { context, page } = await signedInContext(browser, service, account.apiKey, { scope: 'manage' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    await tabTo(page, 'Callbacks');
    await enter(page);
    expect(new URL(page.url()).pathname).toBe('/console/callbacks');
    await page.getByText('No callback URL is set for this mode').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await tabToField(page, 'cb-url');
    await page.keyboard.type(receiverUrl);
    await enter(page);
    const first = (await page.locator('#new-secret-value').textContent())?.trim() ?? '';
    expect(first).toMatch(SECRET);
    expect(page.url()).not.toContain('whsec_');
    expect(await axeViolations(page)).toEqual([]);

    await tabTo(page, 'Rotate the secret');
    await enter(page);
    const rotated = (await page.locator('#new-secret-value').textContent())?.trim() ?? '';
    expect(rotated).toMatch(SECRET);
    expect(rotated).not.toBe(first);
    expect(await axeViolations(page)).toEqual([]);
    await tabTo(page, 'Copy the secret');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(rotated);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'callbacks');

    const eventId = await eventIdOf(account, await completeSubmission(service, account));
    await tabTo(page, 'Done: back to the callbacks');
    await enter(page);
    expect(await page.content()).not.toContain(rotated);
    // Events are listed by the partner's own reference (the example's), leading to the event.
    await tabTo(page, 'sub-000123');
    await enter(page);
    expect(await heading(page, 'Callback for sub-000123')).toBe(true);
    await page.getByText(eventId).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'event');
    await tabTo(page, 'Redeliver');
    await enter(page);
    await page.getByRole('status').filter({ hasText: 'The event is being sent again' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await waitUntil(
      async () => receiver.deliveries.filter((d) => d.headers['webhook-id'] === eventId).length === 2,
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it('every Callbacks page loads with JavaScript off (the secret as selectable text), and passes axe', async () => {
    const own = await createAccount(service);
    const off = await signedInContext(browser, service, own.apiKey, { javaScriptEnabled: false });
    const reader = await signedInContext(browser, service, own.apiKey, { scope: 'read' });
    await off.page.goto(`${service.url}/console/callbacks`);
    await off.page.getByLabel('Callback URL').fill(receiverUrl);
    await off.page.getByRole('button', { name: 'Save the URL' }).click();
    expect((await off.page.locator('#new-secret-value').textContent())?.trim()).toMatch(SECRET);
    await eventIdOf(own, await completeSubmission(service, own));
    await off.page.goto(`${service.url}/console/callbacks`);
    await off.page.getByRole('button', { name: 'Rotate the secret' }).click();
    expect((await off.page.locator('#new-secret-value').textContent())?.trim()).toMatch(SECRET);
    expect(await off.page.getByRole('button', { name: 'Copy the secret' }).count()).toBe(0);
    await off.page.goto(`${service.url}/console/callbacks`);
    await off.page.getByLabel('From (UTC)').fill(new Date(Date.now() - 3_600_000).toISOString().slice(0, 16));
    await off.page.getByRole('button', { name: 'Recover these events' }).click();
    expect(await heading(off.page, 'Recovery')).toBe(true);
    const recoveryPath = new URL(off.page.url()).pathname;
    const eventHref = await off.page
      .goto(`${service.url}/console/callbacks`)
      .then(() => off.page.locator('table.list a').first().getAttribute('href'));
    for (const [path, title] of [
      ['/console/callbacks', 'Callbacks'],
      ['/console/callbacks?deliveryStatus=delivered', 'Callbacks'],
      ['/console/callbacks?createdAfter=yesterday', 'Callbacks'],
      [eventHref ?? '', /^Callback for /],
      [recoveryPath, 'Recovery'],
      ['/console/callbacks/events/00000000-0000-4000-8000-000000000000', 'Not found'],
    ] as const) {
      await off.page.goto(`${service.url}${path}`);
      expect([path, await off.page.getByRole('heading', { level: 1, name: title }).isVisible()]).toEqual([
        path,
        true,
      ]);
      await reader.page.goto(`${service.url}${path}`);
      expect([path, await axeViolations(reader.page)]).toEqual([path, []]);
      expect(await reader.page.getByRole('button', { name: /Redeliver|Rotate|Save the URL/ }).count()).toBe(
        0,
      );
    }
    await off.context.close();
    await reader.context.close();
  });
});
