import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { RunningService } from '../../src/service.js';
import { launchChromium } from './chromium.js';
import { consoleLink } from './console.js';
import { createAccount, startTestService, type TestAccount, type TestService } from './service.js';

/**
 * What the console's Chromium tests share (issue 31): axe-core with the WCAG 2.2 AA tags and no
 * rule disabled, keyboard-only moves, signed-in contexts and the screenshots
 * `npm run docs:console` keeps.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

// What the page.evaluate callbacks use in Chromium (tsconfig has no DOM lib of its own).
interface AxeResult {
  violations: Array<{ id: string; nodes: Array<{ target: unknown }> }>;
}
declare const axe: { run(context: unknown, options: unknown): Promise<AxeResult> };
declare const document: {
  activeElement: { id: string; textContent: string | null; tagName: string } | null;
};

/** A free loopback port, so PUBLIC_BASE_URL (the links' base) is the service's real address. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** axe-core's violations on the page as it is now, one line each (empty when clean). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(
    (tags) => axe.run(document, { runOnly: { type: 'tag', values: tags } }),
    AXE_TAGS,
  );
  return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

/** A browser context signed in with a fresh link made with `apiKey`, on the overview. */
export async function signedInContext(
  browser: Browser,
  service: RunningService,
  apiKey: string,
  options: { javaScriptEnabled?: boolean; scope?: 'read' | 'manage' } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    viewport: { width: 1200, height: 900 },
  });
  const page = await context.newPage();
  const link = await consoleLink(service, apiKey, { scope: options.scope ?? 'manage' });
  await page.goto(String(link.json.url));
  expect(new URL(page.url()).pathname).toBe('/console/');
  expect(page.url()).not.toContain('token');
  return { context, page };
}

/** Presses Enter on what has the focus and waits for the page it leads to. */
export async function enter(page: Page): Promise<void> {
  await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
}

/** Tabs until the focused element's text is `text` (keyboard only). */
export async function tabTo(page: Page, text: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    if (focused === text) return;
  }
  throw new Error(`never reached "${text}" with Tab`);
}

/** A full-page screenshot in test-output/, copied to docs/images/ by `npm run docs:console`. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
  const file = path.join(ROOT, `test-output/console-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.UPDATE_DOCS_IMAGES === '1') {
    mkdirSync(path.join(ROOT, 'docs/images'), { recursive: true });
    copyFileSync(file, path.join(ROOT, `docs/images/console-${name}.png`));
  }
}

/** Tabs until the form field `id` has the focus (keyboard only). */
export async function tabToField(page: Page, id: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate(() => document.activeElement?.id ?? '')) === id) return;
  }
  throw new Error(`never reached #${id} with Tab`);
}

/** Whether the page's level-1 heading `name` is shown. */
export function heading(page: Page, name: string | RegExp): Promise<boolean> {
  return page.getByRole('heading', { level: 1, name }).isVisible();
}

/** What a console Chromium test runs against: a service, its account, a browser. */
export interface ConsoleBrowserSetup {
  browser: Browser;
  service: TestService;
  account: TestAccount;
  close(): Promise<void>;
}

/**
 * A test service on a free loopback port (so PUBLIC_BASE_URL, the links' base, is its real
 * address), an account named like a partner's, and Chromium.
 */
export async function startConsoleBrowser(env: Record<string, string> = {}): Promise<ConsoleBrowserSetup> {
  const port = await freePort();
  const service = await startTestService({
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    ...env,
  });
  const account = await createAccount(service, { name: 'Harbour Clinic' });
  const browser = await launchChromium();
  return {
    browser,
    service,
    account,
    close: async () => {
      await browser.close();
      await service.stop();
    },
  };
}
