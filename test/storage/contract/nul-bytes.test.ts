import { expect } from 'chai';
import { createUser } from '../../support/fixtures.ts';
import { startService, type RunningService } from '../../support/service.ts';
import { forEachBackend } from '../../support/storage/backends.ts';

/**
 * A NUL character cannot be part of a BSON key or a regular expression: MongoDB's driver throws on it. Every
 * store refuses it as bad input (400 guard.invalid_input) before anything is written, never as a 500.
 */
forEachBackend('NUL characters in keys and searches', (backend) => {
  let running: RunningService;
  before(async () => {
    running = await startService({ stores: { documents: await backend.open() } });
  });
  after(() => running?.close());

  async function refused(path: string, init: Parameters<RunningService['request']>[1]): Promise<void> {
    const response = await running.request(path, init);
    expect(response.status, `${init?.method ?? 'GET'} ${path}`).to.equal(400);
    expect(((await response.json()) as { code: string }).code).to.equal('guard.invalid_input');
  }

  it('refuses customData keys, customizer variable names and search values carrying NUL', async () => {
    const user = await createUser(running);
    await refused(`/api/users/${user.id}/custom-data`, { method: 'PATCH', json: { customData: { 'a\u0000b': 1 } } });
    await refused(`/api/users/${user.id}/custom-data`, {
      method: 'PATCH',
      json: { customData: { nested: { 'x\u0000': true } } },
    });
    await refused('/api/users', { method: 'POST', json: { username: 'nul_user', customData: { 'k\u0000': 'v' } } });
    await refused('/api/organizations', { method: 'POST', json: { name: 'nul org', customData: { 'k\u0000': 'v' } } });
    await refused('/api/configs/jwt-customizer/access-token', {
      method: 'PUT',
      json: { script: 'const getCustomJwtClaims = async () => ({});', environmentVariables: { 'A\u0000B': 'x' } },
    });
    await refused(`/api/users?search=${encodeURIComponent('ad\u0000a')}`, {});
    const stored = await running.request(`/api/users/${user.id}/custom-data`);
    expect(await stored.json()).to.deep.equal({});
    const named = await running.request('/api/users?search=nul_user');
    expect(await named.json()).to.deep.equal([]);
  });
});
