import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The layers above `lib/`: they may use it, it may not use them. */
const ABOVE_LIB = ['routes', 'extensions', 'adapters', 'app', 'bin'];

/** Every TypeScript source under `dir`, as a path relative to the repository. */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))
    .map((path) => join(dir, path))
    .sort();
}

/**
 * The relative modules a file names: static imports and re-exports (type-only ones too: a type still ties the two
 * files), dynamic `import()`, and `new URL('…', import.meta.url)` (a worker thread's file).
 */
function referencesOf(file: string): Array<{ target: string; kind: 'import' | 'url' }> {
  const text = readFileSync(join(root, file), 'utf8');
  const found: Array<{ specifier: string; kind: 'import' | 'url' }> = [];
  for (const pattern of [
    /^\s*(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]) {
    for (const match of text.matchAll(pattern)) found.push({ specifier: match[1]!, kind: 'import' });
  }
  for (const match of text.matchAll(/new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g)) {
    found.push({ specifier: match[1]!, kind: 'url' });
  }
  return found
    .filter(({ specifier }) => specifier.startsWith('.'))
    .map(({ specifier, kind }) => ({ target: relative(root, resolve(root, dirname(file), specifier)), kind }));
}

/** The import cycles among `files`: each strongly connected component of more than one file, or a file importing itself. */
function cycles(files: string[], edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (edges.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

/** A capability's repositories: `lib/<capability>/repository.ts` and `lib/<capability>/<name>-repository.ts`. */
const isRepository = (path: string) => /^lib\/[a-z-]+\/(?:[a-z-]+-)?repository\.ts$/.test(path);

/** The static imports of a file that bring values (not `import type`, not only `type` specifiers), with their targets. */
function valueImportsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*import\s+(type\s+)?([^;]*?)\s+from\s*['"]([^'"]+)['"]/gm)) {
    const [, typeOnly, clause, specifier] = match;
    if (typeOnly || !specifier!.startsWith('.')) continue;
    const named = clause!.match(/^\{([^}]*)\}$/s);
    if (named && named[1]!.split(',').every((item) => item.trim() === '' || item.trim().startsWith('type '))) continue;
    found.push(relative(root, resolve(root, dirname(file), specifier!)));
  }
  return found;
}

describe('the layers', () => {
  const files = sources('lib');

  it('finds the imports it checks (a check that reads nothing would pass)', () => {
    expect(files.length).to.be.above(100);
    expect(referencesOf('lib/events/bus.ts').map(({ target }) => target)).to.include('lib/events/catalogue.ts');
  });

  it('keep lib/ below what uses it: no file in lib/ imports routes/, extensions/, adapters/, app/ or bin/', () => {
    const upward = files.flatMap((file) =>
      referencesOf(file)
        .filter(({ target }) => ABOVE_LIB.some((layer) => target === layer || target.startsWith(`${layer}/`)))
        .map(({ target }) => `${file} -> ${target}`),
    );
    expect(upward, `imports from lib/ into the layers above it:\n  ${upward.join('\n  ')}`).to.deep.equal([]);
  });

  it("keep each capability's repositories private: outside its folder a repository is named only for its types", () => {
    const everywhere = [...files, ...ABOVE_LIB.filter((layer) => existsSync(join(root, layer))).flatMap(sources)];
    const reached = everywhere.flatMap((file) =>
      valueImportsOf(file)
        .filter((target) => isRepository(target) && dirname(target) !== dirname(file))
        .map((target) => `${file} -> ${target}`),
    );
    expect(everywhere.filter(isRepository).length, 'the repositories it guards').to.be.above(10);
    expect(reached, `repositories reached from outside their folder:\n  ${reached.join('\n  ')}`).to.deep.equal([]);
  });

  it('hand routes and extensions only the capabilities they name, never the whole service core', () => {
    const modules = ['routes', 'extensions'].flatMap(sources);
    const whole = modules.filter((file) => /:\s*ServiceCore\b/.test(readFileSync(join(root, file), 'utf8')));
    const named = modules.filter((file) => /Pick<\s*ServiceCore,/.test(readFileSync(join(root, file), 'utf8')));
    expect(named.length, 'route modules that name their capabilities').to.be.above(20);
    expect(whole, `modules taking the whole core:\n  ${whole.join('\n  ')}`).to.deep.equal([]);
  });

  it('have no import cycle inside lib/', () => {
    const edges = new Map(
      files.map((file) => [
        file,
        referencesOf(file)
          .filter(
            ({ kind, target }) => kind === 'import' && target.startsWith('lib/') && existsSync(join(root, target)),
          )
          .map(({ target }) => target)
          .filter((target, at, all) => all.indexOf(target) === at),
      ]),
    );
    const found = cycles(files, edges).map((component) => {
      const ties = component.flatMap((file) =>
        edges
          .get(file)!
          .filter((target) => component.includes(target))
          .map((target) => `${file} -> ${target}`),
      );
      return `${component.join(', ')}\n    ${ties.join('\n    ')}`;
    });
    expect(found, `import cycles in lib/:\n  ${found.join('\n  ')}`).to.deep.equal([]);
  });
});
