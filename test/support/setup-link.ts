import { expect } from 'chai';

/** The console setup link's token, from what the service printed at start (it prints one while no admin exists). */
export function setupToken(printed: readonly string[], baseUrl: string): string {
  const line = printed
    .join('')
    .split('\n')
    .find((text) => text.includes('/console/setup#token='));
  expect(line, `a setup link in ${JSON.stringify(printed)}`).to.be.a('string');
  const url = new URL(line!.trim());
  expect(`${url.origin}${url.pathname}`).to.equal(`${baseUrl}/console/setup`);
  return new URLSearchParams(url.hash.slice(1)).get('token')!;
}
