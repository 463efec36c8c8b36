import { request } from 'node:http';
import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';

/**
 * The management API's JSON bodies: plain, complete bodies are read directly, everything else (chunked, still
 * arriving, another spelling of the type) through the general parser; both answer alike.
 */
describe('management API JSON bodies', () => {
  let running: RunningService;
  let token: string;

  before(async () => {
    running = await startService();
    token = await running.adminToken();
  });
  after(() => running.close());

  const send = (body: RequestInit['body'], type = 'application/json') =>
    fetch(`${running.baseUrl}/api/users`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
    });
  const codeOf = async (res: Response) => [res.status, ((await res.json()) as { code?: string }).code];

  /** Sends the body in two writes, the second after the first has been written out. */
  function sendInTwoParts(text: string): Promise<{ status: number; body: string }> {
    const bytes = Buffer.from(text);
    return new Promise((resolve, reject) => {
      const req = request(
        `${running.baseUrl}/api/users`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': String(bytes.length),
          },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.flushHeaders();
      req.write(bytes.subarray(0, 5), () => req.end(bytes.subarray(5)));
    });
  }

  it('reads UTF-8 bodies, with a byte order mark and with a charset parameter', async () => {
    const created = await send(JSON.stringify({ username: 'json_plain', name: 'Zoë 名前' }));
    expect(created.status).to.equal(201);
    expect(((await created.json()) as { name: string }).name).to.equal('Zoë 名前');
    expect((await send(`\uFEFF${JSON.stringify({ username: 'json_bom' })}`)).status).to.equal(201);
    expect(
      (await send(JSON.stringify({ username: 'json_charset' }), 'application/json; charset=UTF-8')).status,
    ).to.equal(201);
    expect((await send(JSON.stringify({ username: 'json_vnd' }), 'application/vnd.api+json')).status).to.equal(201);
  });

  it('reads a body that arrives in parts, or chunked without a length', async () => {
    const parts = await sendInTwoParts(JSON.stringify({ username: 'json_parts' }));
    expect(parts.status, parts.body).to.equal(201);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ username: 'json_chunked' })));
        controller.close();
      },
    });
    const chunked = await fetch(`${running.baseUrl}/api/users`, {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    } as RequestInit);
    expect(chunked.status).to.equal(201);
  });

  it('answers guard.invalid_json for malformed JSON, a scalar and a __proto__ key, however escaped', async () => {
    for (const body of [
      '{not json',
      '"a string"',
      '42',
      '{"username":"x","__proto__":{"admin":true}}',
      '{"username":"x","nested":{"\\u005f_proto__":{}}}',
    ]) {
      expect(await codeOf(await send(body)), body).to.deep.equal([400, 'guard.invalid_json']);
    }
  });

  it('takes an empty body as an empty object, and refuses one over the limit with 413', async () => {
    expect(
      await codeOf(
        await running.request('/api/subject-tokens', {
          method: 'POST',
          body: '',
          headers: { 'content-type': 'application/json' },
        }),
      ),
    ).to.deep.equal([400, 'guard.invalid_input']);
    const large = JSON.stringify({ username: 'json_large', name: 'a'.repeat(300 * 1024) });
    expect(await codeOf(await send(large))).to.deep.equal([413, 'guard.payload_too_large']);
  });
});
