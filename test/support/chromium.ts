/**
 * Headless Chromium for browser tests: Debian's `/usr/bin/chromium` (installed by `.ci/run`) driven by
 * playwright-core, which never downloads a browser. Without it, a suite is reported as pending with the reason.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-output', 'screenshots');

/** Why browser tests cannot run here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM_PATH)
    ? undefined
    : `${CHROMIUM_PATH} is missing (bash .ci/run installs Debian's chromium)`;
}

/**
 * Launches Chromium for the enclosing `describe` (each test then opens a fresh context), or marks every test of
 * it pending, naming the reason in each test's title, when Chromium is not installed.
 */
export function useChromium(): { browser(): Browser } {
  let browser: Browser | undefined;
  before(async function launch() {
    const missing = chromiumMissing();
    if (missing) {
      for (const test of this.test?.parent?.tests ?? []) test.title += ` (pending: ${missing})`;
      this.skip();
    }
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
  });
  after(async () => {
    await browser?.close();
  });
  return {
    browser() {
      if (!browser) throw new Error('Chromium is not running');
      return browser;
    },
  };
}

/** A fresh context (no cookies, no storage) and its one page; phone-sized when `viewport` says so. */
export async function freshPage(
  browser: Browser,
  viewport = { width: 1024, height: 800 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, userAgent: 'browser-tests (Chromium)' });
  context.setDefaultTimeout(10_000);
  return { context, page: await context.newPage() };
}

/** Saves what the page shows under test-output/screenshots/<name>.png (the full page, unless it is very long). */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: options.fullPage ?? true });
}

/** Whether the element has the keyboard focus. */
export function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === element.ownerDocument.activeElement);
}

/** The text of the elements that `aria-describedby` ties to the element: what a screen reader reads after its name. */
export function accessibleDescription(locator: Locator): Promise<string> {
  return locator.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id: string) => element.ownerDocument.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  );
}
