import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIGURATION_DOC, REGENERATE, renderConfiguration } from '../../scripts/configuration-docs.ts';
import { REGENERATE_ROUTE_EVENTS, ROUTE_EVENTS_DOC, withRouteEvents } from '../../scripts/route-events-docs.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The Markdown a reader is pointed to: the README, the reference under docs/, and the READMEs beside the code. */
function documents(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', 'bench/README.md', 'console/README.md', ...docs].filter((path) => existsSync(join(root, path)));
}

/** The text outside fenced code blocks and inline code spans, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const slug = heading!
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, id] of markdown.matchAll(/<a (?:id|name)="([^"]+)"/g)) result.add(id!);
  return result;
}

/** Every relative link and image of one document that names no file, or no heading in the file it names. */
function brokenLinks(path: string): string[] {
  const text = readFileSync(join(root, path), 'utf8');
  const broken: string[] = [];
  for (const [, target] of prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
    const [file, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = file === '' ? join(root, path) : join(root, dirname(path), decodeURIComponent(file));
    if (!existsSync(resolved)) {
      broken.push(`${path}: ${target} (no file ${relative(root, resolved)})`);
    } else if (
      anchor !== undefined &&
      statSync(resolved).isFile() &&
      resolved.endsWith('.md') &&
      !anchors(readFileSync(resolved, 'utf8')).has(anchor)
    ) {
      broken.push(`${path}: ${target} (no heading #${anchor} in ${relative(root, resolved)})`);
    }
  }
  return broken;
}

describe('the documentation', () => {
  it('has no relative link to a missing file or heading', () => {
    const broken = documents().flatMap(brokenLinks);
    expect(broken, `broken links:\n  ${broken.join('\n  ')}`).to.deep.equal([]);
  });

  it('keeps the README to one screen of reading: at most 200 lines, the reference being under docs/', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines, `README.md has ${lines} lines; move reference material to docs/ and link to it`).to.be.at.most(200);
  });

  it("keeps the benchmarks' README to the method, the current figures and what each change bought: at most 150 lines", () => {
    const lines = readFileSync(join(root, 'bench/README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines, `bench/README.md has ${lines} lines`).to.be.at.most(150);
  });

  it('lists every variable of lib/config.ts in docs/configuration.md as the schema and its comments say', () => {
    const committed = readFileSync(CONFIGURATION_DOC, 'utf8');
    const current = renderConfiguration();
    if (committed !== current) {
      throw new Error(
        `docs/configuration.md is stale: run \`${REGENERATE}\` and commit the result ` +
          '(it is generated from the comments in lib/config.ts)',
      );
    }
    expect(current).to.include('### `PORT`');
  });

  it('lists in docs/management-api.md the events of every operation as the enforced route → event table says', () => {
    const committed = readFileSync(ROUTE_EVENTS_DOC, 'utf8');
    const current = withRouteEvents(committed);
    if (committed !== current) {
      throw new Error(
        `docs/management-api.md is stale: run \`${REGENERATE_ROUTE_EVENTS}\` and commit the result ` +
          '(its event table is generated from lib/events/management-events.ts)',
      );
    }
    expect(current).to.include('| `POST /api/users` | `User.Created` |');
  });
});
