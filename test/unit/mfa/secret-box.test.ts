import { expect } from 'chai';
import { createSecretBox } from '../../../lib/mfa/secret-box.ts';

describe('MFA secret box (AES-256-GCM under MFA_SECRET_KEYS)', () => {
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

  it('opens what it sealed, and a sealed secret shows nothing of it', () => {
    const box = createSecretBox(['first key']);
    const sealed = box.seal(secret, 'totp:user:factor');
    expect(sealed).not.to.include(secret);
    expect(sealed).not.to.equal(box.seal(secret, 'totp:user:factor'), 'a fresh IV each time');
    expect(box.open(sealed, 'totp:user:factor')).to.equal(secret);
  });

  it('is bound to its record: another context does not open it', () => {
    const box = createSecretBox(['first key']);
    expect(box.open(box.seal(secret, 'totp:alice:1'), 'totp:mallory:2')).to.equal(undefined);
  });

  it('refuses tampering and what is not a sealed secret', () => {
    const box = createSecretBox(['first key']);
    const parts = box.seal(secret, 'c').split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[3] = body.toString('base64url');
    for (const bad of [parts.join('.'), '', 'v1', 'v2.x.y.z.w', 'v1.unknownkid.AAAA.AAAA.AAAA']) {
      expect(box.open(bad, 'c'), bad.slice(0, 20)).to.equal(undefined);
    }
  });

  it('rotates: the new key first seals, the old one listed still opens; dropped, it no longer does', () => {
    const before = createSecretBox(['old key']);
    const sealed = before.seal(secret, 'c');
    const rotated = createSecretBox(['new key', 'old key']);
    expect(rotated.open(sealed, 'c')).to.equal(secret);
    const resealed = rotated.seal(secret, 'c');
    expect(before.open(resealed, 'c'), 'sealed under the new key').to.equal(undefined);
    expect(createSecretBox(['new key']).open(sealed, 'c')).to.equal(undefined);
    expect(() => createSecretBox([])).to.throw();
  });
});
