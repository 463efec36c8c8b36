/**
 * `npm run verify:image`: builds the container image with the first container runtime that answers (docker,
 * then podman) and checks that the built image loads the service and every runtime dependency. Without a
 * runtime it says so and succeeds, since nothing can be checked; test/operations/image.test.ts covers what
 * can be checked without one.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const TAG = 'identity-service:verify';
const root = new URL('../', import.meta.url);

function answers(runtime: string): boolean {
  return spawnSync(runtime, ['info'], { stdio: 'ignore', timeout: 20_000 }).status === 0;
}

function step(runtime: string, args: string[]): void {
  console.log(`$ ${runtime} ${args.join(' ')}`);
  const result = spawnSync(runtime, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`verify:image: ${runtime} ${args[0]} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}

const runtime = ['docker', 'podman'].find(answers);
if (!runtime) {
  console.log('verify:image: no container runtime answers (tried docker info, podman info): the image was not built.');
  process.exit(0);
}
const { dependencies } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  dependencies: Record<string, string>;
};
step(runtime, ['build', '--tag', TAG, '.']);
const load = `for (const name of ${JSON.stringify(Object.keys(dependencies))}) await import(name); await import('./app/index.ts');`;
step(runtime, ['run', '--rm', TAG, 'node', '--input-type=module', '-e', load]);
console.log(`verify:image: ${TAG} builds and loads the service with ${runtime}`);
