import { expect } from 'chai';
import { createSecretBox } from '../../../lib/secret-box.ts';

describe('secret box (AES-256-GCM for TOTP secrets and connector client secrets)', () => {
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

  it('opens what it sealed, and a sealed secret shows nothing of it', () => {
    const box = createSecretBox(['first key'], 'mfa');
    const sealed = box.seal(secret, 'totp:user:factor');
    expect(sealed).not.to.include(secret);
    expect(sealed).not.to.equal(box.seal(secret, 'totp:user:factor'), 'a fresh IV each time');
    expect(box.open(sealed, 'totp:user:factor')).to.equal(secret);
  });

  it('is bound to its record: another context does not open it', () => {
    const box = createSecretBox(['first key'], 'mfa');
    expect(box.open(box.seal(secret, 'totp:alice:1'), 'totp:mallory:2')).to.equal(undefined);
  });

  it('refuses tampering and what is not a sealed secret', () => {
    const box = createSecretBox(['first key'], 'mfa');
    const parts = box.seal(secret, 'c').split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[3] = body.toString('base64url');
    for (const bad of [parts.join('.'), '', 'v1', 'v2.x.y.z.w', 'v1.unknownkid.AAAA.AAAA.AAAA']) {
      expect(box.open(bad, 'c'), bad.slice(0, 20)).to.equal(undefined);
    }
  });

  it('rotates: the new key first seals, the old one listed still opens; dropped, it no longer does', () => {
    const before = createSecretBox(['old key'], 'mfa');
    const sealed = before.seal(secret, 'c');
    const rotated = createSecretBox(['new key', 'old key'], 'mfa');
    expect(rotated.open(sealed, 'c')).to.equal(secret);
    const resealed = rotated.seal(secret, 'c');
    expect(before.open(resealed, 'c'), 'sealed under the new key').to.equal(undefined);
    expect(createSecretBox(['new key'], 'mfa').open(sealed, 'c')).to.equal(undefined);
    expect(() => createSecretBox([], 'mfa')).to.throw();
  });

  it('keeps purposes apart: the same key list seals differently for MFA and for connectors', () => {
    const sealed = createSecretBox(['shared key'], 'connector').seal(secret, 'connector-id');
    expect(createSecretBox(['shared key'], 'connector').open(sealed, 'connector-id')).to.equal(secret);
    expect(createSecretBox(['shared key'], 'mfa').open(sealed, 'connector-id')).to.equal(undefined);
  });
});
