import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium, headless, quiet: nothing fetched from outside, no GPU, no sandbox in CI. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}
