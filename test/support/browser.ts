/**
 * A tiny cookie-keeping browser for driving the sign-in pages over real HTTP: follows redirects by hand
 * and stops at the client's redirect URI. Like a real browser it submits a form's hidden inputs (the CSRF
 * token) with what the user typed: it remembers them from every page it loaded.
 */
export class Browser {
  readonly #cookies = new Map<string, string>();
  readonly #hiddenFields = new Map<string, Record<string, string>>();

  #store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  #header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.#cookies.size) headers.set('cookie', this.#header());
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.#store(res);
    if (res.headers.get('content-type')?.startsWith('text/html')) {
      for (const [action, fields] of hiddenFieldsOf(await res.clone().text())) this.#hiddenFields.set(action, fields);
    }
    return res;
  }

  /** Follows redirects until a page answers, or until a URL starting with `stopAt` is reached. */
  async follow(url: string, stopAt: string, init: RequestInit = {}): Promise<{ url: string; res: Response }> {
    let current = url;
    let res = await this.request(current, init);
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops += 1) {
      current = new URL(res.headers.get('location')!, current).href;
      if (current.startsWith(stopAt)) return { url: current, res };
      res = await this.request(current);
    }
    return { url: current, res };
  }

  async submit(action: string, fields: Record<string, string>, stopAt: string) {
    return this.follow(action, stopAt, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...this.#hiddenFields.get(action), ...fields }).toString(),
    });
  }
}

const decode = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** Each form's action with the names and values of its hidden inputs. */
function hiddenFieldsOf(html: string): Map<string, Record<string, string>> {
  const forms = new Map<string, Record<string, string>>();
  for (const form of html.matchAll(/<form\b[^>]*\baction="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)) {
    const fields: Record<string, string> = {};
    for (const input of form[2]!.matchAll(/<input\b[^>]*>/g)) {
      if (!/\btype="hidden"/.test(input[0])) continue;
      const name = /\bname="([^"]*)"/.exec(input[0])?.[1];
      if (name !== undefined) fields[decode(name)] = decode(/\bvalue="([^"]*)"/.exec(input[0])?.[1] ?? '');
    }
    forms.set(decode(form[1]!), fields);
  }
  return forms;
}

/** The `action` of the first form on a page (the sign-in or consent form). */
export function formAction(html: string): string {
  const match = /<form method="post" action="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no form on page: ${html.slice(0, 200)}`);
  return decode(match[1]!);
}
