import { expect } from 'chai';
import { hashPassword, verifyPassword } from '../../lib/users/passwords.ts';

describe('password hashing (scrypt)', () => {
  it('stores scrypt$N$r$p$salt$hash with a fresh 16-byte salt each time', async () => {
    const [a, b] = [await hashPassword('same password'), await hashPassword('same password')];
    expect(a).to.not.equal(b);
    const [scheme, n, r, p, salt, hash] = a.split('$');
    expect([scheme, n, r, p]).to.deep.equal(['scrypt', '32768', '8', '1']);
    expect(Buffer.from(salt!, 'base64')).to.have.length(16);
    expect(Buffer.from(hash!, 'base64')).to.have.length(32);
  });

  it('verifies the right password only', async () => {
    const digest = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', digest)).to.equal(true);
    expect(await verifyPassword('correct horse batterY', digest)).to.equal(false);
    expect(await verifyPassword('', digest)).to.equal(false);
  });

  it('never matches a missing or malformed digest, nor one asking for absurd cost', async () => {
    const digest = await hashPassword('pw-pw-pw-pw');
    const [, , , , salt, hash] = digest.split('$');
    for (const bad of [
      null,
      undefined,
      '',
      'plain',
      `bcrypt$32768$8$1$${salt}$${hash}`,
      `scrypt$1000$8$1$${salt}$${hash}`,
      `scrypt$${2 ** 30}$8$1$${salt}$${hash}`,
      `scrypt$32768$99$1$${salt}$${hash}`,
      `scrypt$32768$8$1$${salt}$AAAA`,
      `${digest}$extra`,
    ]) {
      expect(await verifyPassword('pw-pw-pw-pw', bad), String(bad)).to.equal(false);
    }
  });
});
