/**
 * Drives the Experience API the way a sign-in UI of one's own does: a plain HTTP client with a cookie jar
 * starts an authorization request, lands on the sign-in page (which binds the experience cookie), calls
 * `/api/experience`, then follows `redirectTo` back to the client and redeems the code at `/oidc/token`.
 */
import { expect } from 'chai';
import * as client from 'openid-client';
import { Browser } from './browser.ts';
import { createApplication } from './fixtures.ts';
import { codeFrom, startMailbox, type Mailbox } from './mailbox.ts';
import { startService, type RunningService } from './service.ts';
import { Receiver } from './webhooks/receiver.ts';
import { createHook, verifyDelivery } from './webhooks/hooks.ts';
import { expectMatchesSchema } from './event-schemas.ts';
import { eventually } from './wait.ts';

export const REDIRECT = 'http://127.0.0.1:9/callback';

/** The JSON body of a response, untyped: tests assert on its shape. */
export async function json(response: Response | Promise<Response>): Promise<any> {
  return (await response).json();
}

export interface ApiAnswer<T = any> {
  status: number;
  body: T;
}

/** One browser in one OIDC interaction, talking to the Experience API. */
export class ExperienceClient {
  readonly browser = new Browser();
  #verifier = '';
  #config!: client.Configuration;
  readonly running: RunningService;

  constructor(running: RunningService) {
    this.running = running;
  }

  /** Starts an authorization request and follows it to the sign-in page, which sets the experience cookie. */
  async open(app: { id: string; secret?: string }): Promise<string> {
    this.#config = await client.discovery(
      new URL(`${this.running.baseUrl}/oidc`),
      app.id,
      app.secret,
      app.secret ? undefined : client.None(),
      {
        execute: [client.allowInsecureRequests],
      },
    );
    this.#verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(this.#config, {
      redirect_uri: REDIRECT,
      scope: 'openid profile email',
      state: 'st',
      code_challenge: await client.calculatePKCECodeChallenge(this.#verifier),
      code_challenge_method: 'S256',
    });
    const page = await this.browser.follow(url.href, REDIRECT);
    expect(page.res.status, 'the sign-in page').to.equal(200);
    return new URL(page.url).pathname.split('/').pop()!;
  }

  async api<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiAnswer<T>> {
    const res = await this.browser.request(`${this.running.baseUrl}/api/experience${path}`, {
      method,
      headers: {
        'user-agent': 'experience-tests/1.0',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  /** Calls and expects a 2xx; fails with the answer otherwise. */
  async ok<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const answer = await this.api<T>(method, path, body);
    expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).to.be.within(200, 299);
    return answer.body;
  }

  async sendCode(identifier: { type: 'email' | 'phone'; value: string }, interactionEvent: string): Promise<string> {
    return (await this.ok('POST', '/verification/verification-code', { identifier, interactionEvent })).verificationId;
  }

  /** Sends a code by email, reads it from the mailbox and verifies it. */
  async verifyEmail(mailbox: Mailbox, email: string, interactionEvent: string): Promise<string> {
    const verificationId = await this.sendCode({ type: 'email', value: email }, interactionEvent);
    const code = codeFrom(await mailbox.waitFor(email));
    await this.ok('POST', '/verification/verification-code/verify', {
      identifier: { type: 'email', value: email },
      verificationId,
      code,
    });
    return verificationId;
  }

  /** Submits, follows `redirectTo` back to the client and redeems the code: the tokens the client gets. */
  async submitForTokens(): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> {
    const { redirectTo } = await this.ok<{ redirectTo: string }>('POST', '/submit');
    return this.redeem(redirectTo);
  }

  /** Follows the browser from `url` back to the client (unless it is there already) and redeems the code there. */
  async redeem(url: string): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> {
    const callback = url.startsWith(REDIRECT) ? { url, res: undefined } : await this.browser.follow(url, REDIRECT);
    expect(callback.url.startsWith(REDIRECT), `ended at ${callback.url} (${callback.res?.status})`).to.equal(true);
    return client.authorizationCodeGrant(this.#config, new URL(callback.url), {
      pkceCodeVerifier: this.#verifier,
      expectedState: 'st',
    });
  }
}

/** The service with a real SMTP mailbox, a webhook receiver, a hook for every event, and a first-party app. */
export interface ExperienceHarness {
  running: RunningService;
  mailbox: Mailbox;
  receiver: Receiver;
  app: { id: string; secret?: string };
  /** Payloads delivered to the hook so far, verified as a consumer would and checked against their published schema. */
  deliveries(): Array<Record<string, any>>;
  /** Every event the service published (complete once the request that caused it has answered). */
  published(): Array<Record<string, any>>;
  /** Waits for a delivery of `event` matching `where`. */
  delivery(event: string, where?: (payload: Record<string, any>) => boolean): Promise<Record<string, any>>;
  client(): ExperienceClient;
  signInExperience(patch: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export async function startExperienceHarness(env: Record<string, string | undefined> = {}): Promise<ExperienceHarness> {
  const mailbox = await startMailbox();
  const receiver = await Receiver.start();
  const running = await startService({ env: { SMTP_URL: mailbox.url, WEBHOOK_RETRY_DELAYS_MS: '50,100', ...env } });
  const hook = await createHook(running, {
    events: [
      'PostRegister',
      'PostSignIn',
      'PostResetPassword',
      'User.Created',
      'User.Data.Updated',
      'Organization.Membership.Updated',
      'Identifier.Lockout',
    ],
    config: { url: receiver.url('/hook') },
  });
  const app = await createApplication(running, {
    type: 'Traditional',
    oidcClientMetadata: { redirectUris: [REDIRECT] },
  });
  const deliveries = () =>
    receiver.requests('/hook').map((request) => {
      const payload = verifyDelivery(request, hook.signingKey);
      expectMatchesSchema(payload);
      return payload;
    });
  const published: Array<Record<string, any>> = [];
  running.service.core.bus.subscribe(async (events) => {
    published.push(...structuredClone(events));
  });
  return {
    running,
    mailbox,
    receiver,
    app,
    deliveries,
    published: () => [...published],
    delivery: (event, where = () => true) =>
      eventually(() => deliveries().find((payload) => payload.event === event && where(payload)), {
        what: `a ${event} delivery`,
      }),
    client: () => new ExperienceClient(running),
    async signInExperience(patch) {
      const res = await running.request('/api/sign-in-exp', { method: 'PATCH', json: patch });
      expect(res.status, await res.clone().text()).to.equal(200);
    },
    async close() {
      await running.close();
      await receiver.close();
      await mailbox.close();
    },
  };
}

export const uniqueName = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2, 10)}`;
