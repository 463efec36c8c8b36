import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compose = readFileSync(fileURLToPath(new URL('../../docker-compose.yml', import.meta.url)), 'utf8');
/** Every `${NAME…}` expansion: the variable and what follows its name (`:?message`, `:-default`, or nothing). */
const expansions = [...compose.matchAll(/\$\{(\w+)([^}]*)\}/g)].map(([, name, rest]) => ({ name: name!, rest: rest! }));

describe('docker-compose.yml', () => {
  it('requires the secrets from the environment, so it refuses to start without them', () => {
    for (const name of ['ADMIN_CLIENT_SECRET', 'COOKIE_KEYS']) {
      const uses = expansions.filter((expansion) => expansion.name === name);
      expect(uses, name).to.have.length(1);
      expect(uses[0]!.rest, name).to.match(/^:\?\S/);
    }
  });

  it('has no default that could pass for a secret', () => {
    const secretLike = expansions.filter(({ name }) => /SECRET|KEY|PASSWORD|TOKEN/.test(name));
    expect(secretLike.length).to.be.greaterThan(2);
    for (const { name, rest } of secretLike) expect(rest, name).to.match(/^(:\?.+|:-)$/);
    expect(compose).not.to.match(/change-me/i);
  });

  it('runs the web process and the worker from the one image built from the Dockerfile', () => {
    expect(compose.match(/^\s+build: \.$/gm)).to.have.length(2);
    expect(compose.match(/^\s+image: identity-service:local$/gm)).to.have.length(2);
    // Node's flags, if any, between `node` and the entry point (the image's command passes the same).
    expect(compose).to.match(/command: \["node", (?:"--[^"]+", )*"bin\/worker\.ts"\]/);
  });
});
