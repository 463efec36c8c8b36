/**
 * The console as an admin meets it: a service with a configured console admin, and sign-in through the console's
 * own button and the service's sign-in page.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startService, type RunningService } from '../service.ts';

export const CONSOLE_ADMIN = { username: 'console_admin', password: 'Copper-Kettle-93' };

function startConsoleService(env: Record<string, string> = {}): Promise<RunningService> {
  return startService({
    env: { ADMIN_USERNAME: CONSOLE_ADMIN.username, ADMIN_PASSWORD: CONSOLE_ADMIN.password, ...env },
  });
}

/** The console's service as a `describe` block's tests see it, with the reads they check the console's work by. */
export interface ConsoleService extends RunningService {
  /** A management API answer that must be a 200, typed as far as the test reads it. */
  read<T>(path: string): Promise<T>;
  /** The console's address, or one of its pages': `consoleUrl('/roles')`. */
  consoleUrl(path?: string): string;
}

/** Starts a console service before the enclosing `describe` block's tests and closes it after them. */
export function useConsoleService(env: Record<string, string> = {}): ConsoleService {
  let started: RunningService | undefined;
  before(async () => {
    started = await startConsoleService(env);
  });
  after(() => started?.close());
  const running = (): RunningService => {
    if (!started) throw new Error('The console service is not running');
    return started;
  };
  return {
    get service() {
      return running().service;
    },
    get server() {
      return running().server;
    },
    get baseUrl() {
      return running().baseUrl;
    },
    adminToken: () => running().adminToken(),
    request: (path, init) => running().request(path, init),
    close: () => running().close(),
    async read<T>(path: string): Promise<T> {
      const res = await running().request(path);
      expect(res.status, path).to.equal(200);
      return (await res.json()) as T;
    },
    consoleUrl: (path = '') => `${running().baseUrl}/console${path}`,
  };
}

/** Opens the console, presses "Sign in", and signs in on the service's page as `who`. */
export async function signInToConsole(
  page: Page,
  consoleUrl: string,
  who: { username: string; password: string } = CONSOLE_ADMIN,
): Promise<void> {
  await page.goto(consoleUrl);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('textbox', { name: 'Username or email' }).fill(who.username);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}
