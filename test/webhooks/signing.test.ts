import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { generateSigningKey, signatureHeaders } from '../../lib/webhooks/signing.ts';

const body = JSON.stringify({ event: 'User.Created', hookId: 'hook1', data: { name: 'Zoë ✓' } });
const now = () => Math.floor(Date.now() / 1000);

describe('webhook signing', () => {
  it('generates whsec_ keys of 32 random bytes', () => {
    const key = generateSigningKey();
    expect(key).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(key.slice('whsec_'.length), 'base64')).to.have.length(32);
    expect(generateSigningKey()).to.not.equal(key);
  });

  it('produces headers a Standard Webhooks verifier accepts', () => {
    const key = generateSigningKey();
    const headers = signatureHeaders({ deliveryId: 'delivery1', timestamp: now(), body, signingKeys: [key] });
    expect(headers['webhook-id']).to.equal('delivery1');
    expect(headers['webhook-signature']).to.match(/^v1,\S+$/);
    expect(new Webhook(key).verify(body, { ...headers })).to.deep.equal(JSON.parse(body));
  });

  it('fails verification for another key or a changed body', () => {
    const headers = signatureHeaders({ deliveryId: 'd', timestamp: now(), body, signingKeys: [generateSigningKey()] });
    expect(() => new Webhook(generateSigningKey()).verify(body, { ...headers })).to.throw();
    const key = generateSigningKey();
    const signed = signatureHeaders({ deliveryId: 'd', timestamp: now(), body, signingKeys: [key] });
    expect(() => new Webhook(key).verify(`${body} `, { ...signed })).to.throw();
  });

  it('signs with every key during rotation so either one verifies', () => {
    const current = generateSigningKey();
    const previous = generateSigningKey();
    const headers = signatureHeaders({ deliveryId: 'd2', timestamp: now(), body, signingKeys: [current, previous] });
    expect(headers['webhook-signature'].split(' ')).to.have.length(2);
    expect(() => new Webhook(current).verify(body, { ...headers })).to.not.throw();
    expect(() => new Webhook(previous).verify(body, { ...headers })).to.not.throw();
  });

  it('computes logto-signature-sha-256 over the body with the current key string', () => {
    const current = generateSigningKey();
    const headers = signatureHeaders({
      deliveryId: 'd3',
      timestamp: now(),
      body,
      signingKeys: [current, generateSigningKey()],
    });
    const expected = createHmac('sha256', current).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(headers['logto-signature-sha-256']).to.equal(expected);
  });

  it('uses the timestamp in epoch seconds', () => {
    const signingKeys = [generateSigningKey()];
    const headers = signatureHeaders({ deliveryId: 'd', timestamp: 1_700_000_000, body, signingKeys });
    expect(headers['webhook-timestamp']).to.equal('1700000000');
  });

  it('rejects a missing or malformed key', () => {
    const sign = (signingKeys: string[]) => () =>
      signatureHeaders({ deliveryId: 'd', timestamp: now(), body, signingKeys });
    expect(sign([])).to.throw(/signing key/);
    expect(sign(['secret'])).to.throw(/whsec_/);
  });
});
