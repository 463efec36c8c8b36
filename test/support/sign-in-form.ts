/**
 * Reads the sign-in form off the page the way a browser submits it: its action plus every hidden input it
 * carries (a CSRF token, for one), so tests keep working whatever hidden fields the page adds.
 */
import * as client from 'openid-client';
import { Browser } from './browser.ts';
import { createApplication } from './fixtures.ts';
import type { RunningService } from './service.ts';

export interface SignInForm {
  action: string;
  hidden: Record<string, string>;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[\da-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] !== '#') return ENTITIES[entity.toLowerCase()] ?? whole;
    const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1));
    return String.fromCodePoint(code);
  });
}

function attributes(tag: string): Map<string, string> {
  const found = new Map<string, string>();
  const pattern = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  // Skip the tag name itself.
  for (const match of tag.replace(/^<\w+/, '').matchAll(pattern)) {
    found.set(match[1]!.toLowerCase(), decode(match[2] ?? match[3] ?? match[4] ?? ''));
  }
  return found;
}

/** The form that asks for a password; throws with the start of the page when there is none. */
export function signInForm(html: string, pageUrl: string): SignInForm {
  for (const [, open, body] of html.matchAll(/(<form\b[^>]*>)([\s\S]*?)<\/form>/gi)) {
    const inputs = [...body!.matchAll(/<input\b[^>]*>/gi)].map(([tag]) => attributes(tag));
    if (!inputs.some((input) => input.get('type') === 'password')) continue;
    const hidden: Record<string, string> = {};
    for (const input of inputs) {
      const name = input.get('name');
      if (input.get('type') === 'hidden' && name) hidden[name] = input.get('value') ?? '';
    }
    return { action: new URL(attributes(open!).get('action') ?? '', pageUrl).href, hidden };
  }
  throw new Error(`no sign-in form on page: ${html.slice(0, 200)}`);
}

export const REDIRECT = 'http://127.0.0.1:9/callback';

export interface SignInOutcome {
  status: number;
  signedIn: boolean;
  /** The page answered when the sign-in did not go through. */
  page: string;
}

/** One public client; `open()` starts a new authorization request in a fresh browser and stops on its sign-in page. */
export async function signInClient(running: RunningService) {
  const app = await createApplication(running, { type: 'SPA', oidcClientMetadata: { redirectUris: [REDIRECT] } });
  const config = await client.discovery(new URL(`${running.baseUrl}/oidc`), app.id, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
  });
  return {
    async open() {
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        state: 's',
        code_challenge_method: 'S256',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      });
      const browser = new Browser();
      const landed = await browser.follow(url.href, REDIRECT);
      const form = signInForm(await landed.res.text(), landed.url);
      return {
        async submit(identifier: string, password: string): Promise<SignInOutcome> {
          const result = await browser.submit(form.action, { ...form.hidden, identifier, password }, REDIRECT);
          const signedIn = result.url.startsWith(REDIRECT);
          return { status: result.res.status, signedIn, page: signedIn ? '' : await result.res.text() };
        },
      };
    },
  };
}
