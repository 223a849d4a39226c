import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, type Report, renderHtml } from '../../src/reports/index.js';
import { launchChromium } from '../helpers/chromium.js';
import {
  documentsOnlyReport,
  fullReport,
  HOSTILE_TEXT,
  input,
  markerSubmission,
  ROOT,
  reportWithPartnerText,
} from './fixtures.js';

/** The html artifact in real headless Chromium, served from loopback. */

// The page.evaluate callbacks run in Chromium. tsconfig has no DOM lib, so this module declares
// the little of it they use rather than adding DOM types to the whole program.
interface BrowserNode {
  nodeType: number;
  textContent: string | null;
}
interface BrowserElement extends BrowserNode {
  tagName: string;
  parentElement: BrowserElement | null;
  nextElementSibling: BrowserElement | null;
  childNodes: Iterable<BrowserNode>;
  getAttribute(name: string): string | null;
  querySelector(selector: string): BrowserElement | null;
}
declare const document: {
  documentElement: { lang: string; scrollWidth: number };
  querySelectorAll(selector: string): Iterable<BrowserElement>;
  querySelector(selector: string): BrowserElement | null;
  getElementById(id: string): BrowserElement | null;
};
declare const window: { innerWidth: number; __pwned?: number };
declare function getComputedStyle(el: BrowserElement): { color: string; backgroundColor: string };

let browser: Browser;
let server: Server;
let base: string;
const pages = new Map<string, Buffer>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const body = pages.get(req.url ?? '');
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

interface Opened {
  page: Page;
  requests: string[];
  consoleErrors: string[];
}

async function open(report: Report, name: string, viewport = { width: 1100, height: 900 }): Promise<Opened> {
  const url = `/${name}.html`;
  pages.set(url, renderHtml(report));
  const page = await browser.newPage({ viewport });
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await page.goto(`${base}${url}`, { waitUntil: 'load' });
  return { page, requests, consoleErrors };
}

describe('html report in Chromium', () => {
  it('loads nothing beyond itself, logs no errors and shows every outcome title and score', async () => {
    const report = fullReport();
    const { page, requests, consoleErrors } = await open(report, 'full');
    expect(requests).toEqual([`${base}/full.html`]);
    expect(consoleErrors).toEqual([]);
    for (const o of report.outcomes) {
      await expect(page.getByRole('heading', { level: 3, name: o.focus }).first().isVisible()).resolves.toBe(
        true,
      );
      const card = page.locator('.card', { has: page.getByRole('heading', { name: o.focus }) });
      const score = card.locator('.score-value');
      await expect(score.textContent()).resolves.toBe(o.scoreText);
      await expect(score.isVisible()).resolves.toBe(true);
    }
    await expect(page.getByText(report.statement.heading).first().isVisible()).resolves.toBe(true);
    for (const m of report.markers.items) {
      await expect(page.getByText(m.code, { exact: true }).isVisible()).resolves.toBe(true);
    }

    mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
    const shot = path.join(ROOT, 'test-output/report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(readFileSync(shot).subarray(1, 4).toString('latin1')).toBe('PNG');
    // The README's picture is refreshed on request only, so a test run leaves the tree clean.
    if (process.env.UPDATE_DOCS_IMAGES === '1') {
      mkdirSync(path.join(ROOT, 'docs/images'), { recursive: true });
      copyFileSync(shot, path.join(ROOT, 'docs/images/report-html.png'));
    }
    await page.close();
  });

  it('sets lang, keeps headings in order and gives every chart a text alternative', async () => {
    const { page } = await open(fullReport(), 'a11y');
    const facts = await page.evaluate(() => {
      const levels = [...document.querySelectorAll('h1,h2,h3,h4,h5,h6')].map((h) => Number(h.tagName[1]));
      const charts = [...document.querySelectorAll('svg:not([aria-hidden="true"])')].map((svg) => {
        const labelledBy = svg.getAttribute('aria-labelledby');
        const title = svg.querySelector('title')?.textContent ?? '';
        const named = labelledBy === null ? '' : (document.getElementById(labelledBy)?.textContent ?? '');
        return { role: svg.getAttribute('role'), name: svg.getAttribute('aria-label') ?? named, title };
      });
      return { lang: document.documentElement.lang, levels, charts };
    });
    expect(facts.lang).toBe('en');
    expect(facts.levels[0]).toBe(1);
    expect(facts.levels.filter((l) => l === 1)).toHaveLength(1);
    for (let i = 1; i < facts.levels.length; i++) {
      expect(facts.levels[i]! - facts.levels[i - 1]!).toBeLessThanOrEqual(1);
    }
    // 4 score gauges and 14 marker range bars.
    expect(facts.charts).toHaveLength(18);
    for (const c of facts.charts) {
      expect(c.role).toBe('img');
      expect(c.name.length).toBeGreaterThan(10);
      expect(c.title).toBe(c.name);
    }
    // The accessibility tree exposes the charts by name.
    await expect(
      page.getByRole('img', { name: /Heart and circulation: score 0.412 of 1/ }).isVisible(),
    ).resolves.toBe(true);
    await page.close();
  });

  it('has readable contrast for body text', async () => {
    const { page } = await open(fullReport(), 'contrast');
    const worst = await page.evaluate(() => {
      const lum = (rgb: string) => {
        const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
          const c = Number(v) / 255;
          return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const background = (el: BrowserElement | null): string => {
        for (let e = el; e !== null; e = e.parentElement) {
          const bg = getComputedStyle(e).backgroundColor;
          if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return bg;
        }
        return 'rgb(255, 255, 255)';
      };
      let min = 21;
      let where = '';
      for (const el of document.querySelectorAll('p,li,td,th,dt,dd,span,strong,small,h1,h2,h3,h4')) {
        if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent?.trim())) continue;
        const a = lum(getComputedStyle(el).color);
        const b = lum(background(el));
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        if (ratio < min) {
          min = ratio;
          where = el.textContent ?? '';
        }
      }
      return { min, where };
    });
    expect(worst.min, worst.where).toBeGreaterThanOrEqual(4.5);
    await page.close();
  });

  it('fits a phone screen without horizontal scrolling', async () => {
    const { page } = await open(fullReport(), 'phone', { width: 375, height: 800 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.close();
  });

  it('renders a documents-only report without errors', async () => {
    const report = documentsOnlyReport();
    const { page, consoleErrors, requests } = await open(report, 'documents');
    expect(consoleErrors).toEqual([]);
    expect(requests).toHaveLength(1);
    await expect(page.getByText(report.markers.note).isVisible()).resolves.toBe(true);
    await expect(page.getByText('Not measured').first().isVisible()).resolves.toBe(true);
    await page.close();
  });

  it('escapes every interpolated string', async () => {
    const hostile = '<img src=x onerror="window.__pwned=1">&"\'';
    const report = buildReport({ ...input(markerSubmission()), partnerSubjectId: hostile });
    report.outcomes[0]!.explanation = [`<script>window.__pwned=2</script>${hostile}`];
    report.derived.items[0]!.note = hostile;
    const html = renderHtml(report).toString('utf8');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    const { page, requests } = await open(report, 'hostile');
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    expect(requests).toHaveLength(1);
    await expect(page.getByText(hostile).first().isVisible()).resolves.toBe(true);
    await page.close();
  });

  it.each(Object.entries(HOSTILE_TEXT).map(([name, text], i) => [name, text, i] as const))(
    'shows %s as the partner sent it, as text, on a phone screen',
    async (_name, text, i) => {
      const report = reportWithPartnerText(text);
      const html = renderHtml(report).toString('utf8');
      expect(html).not.toContain('<script');
      expect(html).not.toContain('<img');
      const { page, requests, consoleErrors } = await open(report, `partner-text-${i}`, {
        width: 375,
        height: 800,
      });
      expect(consoleErrors).toEqual([]);
      expect(requests).toHaveLength(1);
      expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
      // Character for character, in the title and the masthead (markup shows as text).
      expect(await page.evaluate(() => document.querySelector('title')?.textContent)).toBe(
        `Wellbeing report: ${text}`,
      );
      const facts = await page.evaluate(() =>
        Array.from(document.querySelectorAll('dl.meta dt'), (dt) => [
          dt.textContent,
          dt.nextElementSibling?.textContent,
        ]),
      );
      expect(facts).toContainEqual(['Subject reference', text]);
      expect(facts).toContainEqual(['Submission reference', text]);
      expect(facts).toContainEqual(['Laboratory', report.source.labName]);
      // A 512-character word wraps inside the page instead of widening it.
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await page.close();
    },
  );
});
