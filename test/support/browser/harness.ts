/**
 * The service as a browser meets it: a real SMTP mailbox for its codes, a webhook receiver with a hook for
 * every end-user event, and a relying party (openid-client) with its own loopback origin and logo.
 */
import { expect } from 'chai';
import { codeFrom, startMailbox, type Mailbox } from '../mailbox.ts';
import { startService, type RunningService } from '../service.ts';
import { eventually } from '../wait.ts';
import { createHook, verifyDelivery } from '../webhooks/hooks.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { startRelyingParty, type RelyingParty } from './relying-party.ts';

export const HOOK_EVENTS = [
  'PostRegister',
  'PostSignIn',
  'PostResetPassword',
  'User.Created',
  'User.Data.Updated',
  'Identifier.Lockout',
];

export interface BrowserHarness {
  running: RunningService;
  mailbox: Mailbox;
  rp: RelyingParty;
  /** Deliveries received so far, verified as a consumer verifies them. */
  deliveries(): Array<Record<string, any>>;
  /** Waits for a delivery of `event` about `userId`. */
  delivery(event: string, userId: string): Promise<Record<string, any>>;
  /** The next code mailed to `address`. */
  code(address: string): Promise<string>;
  signInExperience(patch: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export async function startBrowserHarness(
  env: Record<string, string> = {},
  options: { publicHost?: 'localhost' } = {},
): Promise<BrowserHarness> {
  const mailbox = await startMailbox();
  const receiver = await Receiver.start();
  const running = await startService({
    ...options,
    env: { SMTP_URL: mailbox.url, WEBHOOK_RETRY_DELAYS_MS: '50,100', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', ...env },
  });
  const hook = await createHook(running, { events: HOOK_EVENTS, config: { url: receiver.url('/hook') } });
  const rp = await startRelyingParty(running);
  const deliveries = () => receiver.requests('/hook').map((request) => verifyDelivery(request, hook.signingKey));
  const aboutUser = (payload: Record<string, any>, userId: string) =>
    payload.userId === userId || payload.data?.id === userId;
  return {
    running,
    mailbox,
    rp,
    deliveries,
    delivery: (event, userId) =>
      eventually(() => deliveries().find((payload) => payload.event === event && aboutUser(payload, userId)), {
        what: `a ${event} delivery for ${userId}`,
      }),
    code: async (address) => codeFrom(await mailbox.waitFor(address)),
    async signInExperience(patch) {
      const res = await running.request('/api/sign-in-exp', { method: 'PATCH', json: patch });
      expect(res.status, await res.clone().text()).to.equal(200);
    },
    async close() {
      await rp.close();
      await running.close();
      await receiver.close();
      await mailbox.close();
    },
  };
}

export const uniqueEmail = (prefix: string) => `${prefix}.${Math.random().toString(36).slice(2, 10)}@example.com`;
