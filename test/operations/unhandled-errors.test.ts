import { expect } from 'chai';
import { createUser } from '../support/fixtures.ts';
import { capturingLogger, ERROR, type LogLine } from '../support/logs.ts';
import { startService, type RunningService } from '../support/service.ts';
import { openSignIn, post } from '../support/security.ts';
import type { DocumentStore } from '../../lib/ports/documents.ts';
import { interceptedStore } from '../support/intercepted-store.ts';

/** A document store whose `users` collection throws a plain bug-like error on every call while `broken` is set. */
function faultyStore(): { store: DocumentStore; fault: { broken: boolean } } {
  const fault = { broken: false };
  const store = interceptedStore((name) => {
    if (fault.broken && name === 'users') throw new TypeError('users collection exploded');
  });
  return { store, fault };
}

describe('an unexpected error', () => {
  let running: RunningService;
  let fault: { broken: boolean };
  let lines: LogLine[];
  let raw: string[];

  before(async () => {
    const capture = capturingLogger();
    ({ lines, raw } = capture);
    const faulty = faultyStore();
    fault = faulty.fault;
    running = await startService({ logger: capture.logger, stores: { documents: faulty.store } });
  });
  afterEach(() => {
    fault.broken = false;
  });
  after(() => running.close());

  function errorsLoggedSince(index: number): LogLine[] {
    return lines.slice(index).filter((line) => line.level === ERROR);
  }

  it('answers 500 service.internal_error JSON on the management API, logged at error', async () => {
    await running.adminToken();
    const before = lines.length;
    fault.broken = true;
    const res = await running.request('/api/users?search=private-query-value');
    expect(res.status).to.equal(500);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(await res.json()).to.deep.equal({ code: 'service.internal_error', message: 'internal error' });
    const logged = errorsLoggedSince(before);
    expect(logged).to.have.length(1);
    expect(logged[0]).to.include({ method: 'GET', path: '/api/users' });
    expect(logged[0]!.err?.message).to.equal('users collection exploded');
    expect(raw.slice(before).join('')).not.to.include('private-query-value');
  });

  it('answers an HTML page on the sign-in pages, logged at error without the form', async () => {
    const password = 'a-password-that-must-not-be-logged';
    const user = await createUser(running, [], {}, password);
    const interaction = await openSignIn(running);
    const before = lines.length;
    fault.broken = true;
    const res = await post(interaction, '/login', {
      csrf_token: interaction.token,
      identifier: String(user.username),
      password,
    });
    expect(res.status).to.equal(500);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('content-security-policy')).to.include("default-src 'none'");
    const html = await res.text();
    expect(html).to.include('Something went wrong').and.not.include('exploded');
    const logged = errorsLoggedSince(before);
    expect(logged).to.have.length(1);
    expect(logged[0]).to.include({ method: 'POST' });
    expect(logged[0]!.err?.message).to.equal('users collection exploded');
    expect(raw.slice(before).join('')).not.to.include(password);
  });
});
