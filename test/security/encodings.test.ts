import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createUser } from '../support/fixtures.ts';
import { FORM, expectSecurePage, openSignIn, post } from '../support/security.ts';

type Body = RequestInit['body'];

const CORRUPT = ['gzip', 'deflate', 'br', 'GZIP', 'x-gzip'];
const UNSUPPORTED = ['compress', 'zstd', 'gzip, br', 'bogus'];
const ENCODERS: Record<string, (data: string) => Buffer> = {
  gzip: (data) => gzipSync(data),
  deflate: (data) => deflateSync(data),
  br: (data) => brotliCompressSync(data),
};

describe('request bodies with a Content-Encoding', () => {
  let running: RunningService;
  let token: string;

  before(async () => {
    running = await startService();
    token = await running.adminToken();
  });
  after(() => running.close());

  function api(method: string, path: string, body: Body, encoding: string) {
    return fetch(`${running.baseUrl}${path}`, {
      method,
      body,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': encoding },
    });
  }

  describe('on the management API', () => {
    it('answers 400 guard.invalid_body_encoding for a body that does not decode', async () => {
      const user = await createUser(running);
      for (const encoding of CORRUPT) {
        for (const [method, path] of [
          ['POST', '/api/users'],
          ['PATCH', `/api/users/${user.id}`],
          ['POST', '/api/hooks'],
        ]) {
          const res = await api(method!, path!, JSON.stringify({ name: 'plain' }), encoding);
          expect(res.status, `${method} ${path} ${encoding}`).to.equal(400);
          expect(((await res.json()) as { code: string }).code).to.equal('guard.invalid_body_encoding');
        }
      }
      const truncated = await api(
        'POST',
        '/api/users',
        gzipSync(JSON.stringify({ username: 'cut' })).subarray(0, 15),
        'gzip',
      );
      expect(truncated.status).to.equal(400);
      expect(((await truncated.json()) as { code: string }).code).to.equal('guard.invalid_body_encoding');
    });

    it('answers 415 guard.unsupported_content_encoding for a coding it does not decode', async () => {
      for (const encoding of UNSUPPORTED) {
        const res = await api('POST', '/api/users', JSON.stringify({ username: 'x' }), encoding);
        expect(res.status, encoding).to.equal(415);
        expect(res.headers.get('accept-encoding')).to.equal('gzip, deflate, br');
        const body = (await res.json()) as { code: string; message: string };
        expect(body.code).to.equal('guard.unsupported_content_encoding');
        expect(body.message).to.include(encoding);
      }
    });

    it('still decodes gzip, deflate and br bodies, and keeps the size limit on the decoded body', async () => {
      for (const [encoding, encode] of Object.entries(ENCODERS)) {
        const res = await api('POST', '/api/users', encode(JSON.stringify({ username: `enc_${encoding}` })), encoding);
        expect(res.status, encoding).to.equal(201);
      }
      const bomb = gzipSync(JSON.stringify({ username: 'x', name: 'a'.repeat(1024 * 1024) }));
      const tooLarge = await api('POST', '/api/users', bomb, 'gzip');
      expect(tooLarge.status).to.equal(413);
      expect(((await tooLarge.json()) as { code: string }).code).to.equal('guard.payload_too_large');
      const notJson = await api('POST', '/api/users', gzipSync('{not json'), 'gzip');
      expect(((await notJson.json()) as { code: string }).code).to.equal('guard.invalid_json');
    });
  });

  describe('on the sign-in forms', () => {
    it('answers an HTML page with 400 for a form that does not decode and 415 for an unknown coding, signing nobody in', async () => {
      const password = 'an encoded password';
      const username = String((await createUser(running, [], {}, password)).username);
      for (const step of ['/login', '/consent', '/abort']) {
        for (const [encoding, status] of [
          ...CORRUPT.map((e) => [e, 400] as const),
          ...UNSUPPORTED.map((e) => [e, 415] as const),
        ]) {
          const signIn = await openSignIn(running);
          const fields = new URLSearchParams({ csrf_token: signIn.token, identifier: username, password }).toString();
          const res = await post(signIn, step, fields, { 'content-encoding': encoding });
          const html = await res.text();
          expect(res.status, `${step} ${encoding}: ${html}`).to.equal(status);
          expect(html).to.include('Form not accepted');
          expectSecurePage(res, html);
        }
      }
    });

    it('still accepts a gzip-encoded form', async () => {
      const password = 'a zipped password';
      const username = String((await createUser(running, [], {}, password)).username);
      const signIn = await openSignIn(running);
      const fields = new URLSearchParams({ csrf_token: signIn.token, identifier: username, password }).toString();
      const res = await post(signIn, '/login', gzipSync(fields), { 'content-encoding': 'gzip' });
      expect(res.status).to.equal(303);
    });
  });

  describe('on the token endpoint (the provider does not decode bodies)', () => {
    it('refuses any encoded body with 415 invalid_request, where it used to read a labelled plain body as plain', async () => {
      const app = await createApplication(running, { type: 'MachineToMachine' });
      const basic = `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`;
      const form = 'grant_type=client_credentials';
      const bodies: Array<[string, Body]> = [
        ...[...CORRUPT, ...UNSUPPORTED].map((encoding) => [encoding, form] as [string, Body]),
        ['gzip', gzipSync(form)],
        ['br', brotliCompressSync(form)],
      ];
      for (const [encoding, body] of bodies) {
        const res = await fetch(`${running.baseUrl}/oidc/token`, {
          method: 'POST',
          body,
          headers: { authorization: basic, 'content-type': FORM, 'content-encoding': encoding },
        });
        expect(res.status, encoding).to.equal(415);
        expect(await res.json()).to.include({ error: 'invalid_request' });
      }
      const plain = await fetch(`${running.baseUrl}/oidc/token`, {
        method: 'POST',
        body: form,
        headers: { authorization: basic, 'content-type': FORM, 'content-encoding': 'identity' },
      });
      expect(plain.status).to.equal(200);
    });
  });
});
