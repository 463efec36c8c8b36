/**
 * The console as an admin meets it: a service with a configured console admin, and sign-in through the console's
 * own button and the service's sign-in page.
 */
import type { Page } from 'playwright-core';
import { startService, type RunningService } from '../../support/service.ts';

export const CONSOLE_ADMIN = { username: 'console_admin', password: 'Copper-Kettle-93' };

export function startConsoleService(env: Record<string, string> = {}): Promise<RunningService> {
  return startService({ env: { ADMIN_USERNAME: CONSOLE_ADMIN.username, ADMIN_PASSWORD: CONSOLE_ADMIN.password, ...env } });
}

/** Opens the console, presses "Sign in", and signs in on the service's page as `who`. */
export async function signInToConsole(page: Page, consoleUrl: string, who: { username: string; password: string } = CONSOLE_ADMIN): Promise<void> {
  await page.goto(consoleUrl);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('textbox', { name: 'Username or email' }).fill(who.username);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}
