import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { environmentSchema } from '../lib/config.ts';

/**
 * docs/configuration.md, generated from lib/config.ts: `npm run docs:config` writes it, and a test fails while the
 * committed file differs from what this renders. Descriptions are the comments above each variable of
 * `environmentSchema`, so the schema and its documentation live side by side and cannot drift apart.
 */
export const CONFIGURATION_DOC = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
export const REGENERATE = 'npm run docs:config';
const CONFIG_SOURCE = fileURLToPath(new URL('../lib/config.ts', import.meta.url));
const WIDTH = 120;

interface Documented {
  name: string;
  section: string;
  description: string;
  /** Markdown from an `@default` line, when the schema's own default would not say it. */
  defaultText?: string;
}

/** The comment, `@default` line and section of every variable, read from the schema's source in declaration order. */
function readComments(source: string): Documented[] {
  const start = source.indexOf('export const environmentSchema = z.object({');
  const end = source.indexOf('\n});', start);
  if (start === -1 || end === -1) throw new Error('lib/config.ts: environmentSchema = z.object({ … }) not found');
  const documented: Documented[] = [];
  let section = '';
  let comment: string[] | undefined;
  let open: string[] | undefined;
  for (const line of source.slice(start, end).split('\n').slice(1)) {
    const trimmed = line.trim();
    const heading = /^\/\/ Section: (.+)$/.exec(trimmed);
    if (heading) section = heading[1]!;
    if (open) {
      if (trimmed.endsWith('*/')) [comment, open] = [open, undefined];
      else open.push(trimmed.replace(/^\* ?/, ''));
      continue;
    }
    if (trimmed.startsWith('/**')) {
      const single = /^\/\*\*(.*)\*\/$/.exec(trimmed);
      if (single) comment = [single[1]!.trim()];
      else open = [];
      continue;
    }
    const key = /^([A-Z][A-Z0-9_]*):/.exec(trimmed);
    if (!key) continue;
    if (!comment) {
      throw new Error(
        `lib/config.ts: ${key[1]} has no /** description */ above it; add one, then run \`${REGENERATE}\``,
      );
    }
    const tag = comment.findIndex((text) => text.startsWith('@default '));
    const description = (tag === -1 ? comment : comment.slice(0, tag)).join('\n').trim();
    const defaultText = tag === -1 ? undefined : comment.slice(tag).join(' ').slice('@default '.length).trim();
    documented.push({ name: key[1]!, section, description, ...(defaultText ? { defaultText } : {}) });
    comment = undefined;
  }
  return documented;
}

type JsonSchema = {
  default?: unknown;
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
};

/** The values a variable accepts, as far as the schema states them. */
function acceptedValues(input: JsonSchema): string | undefined {
  if (input.enum) {
    const values = input.enum.map((value) => `\`${String(value)}\``);
    return values.length === 2 ? values.join(' or ') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
  }
  if (input.type === 'integer' && input.minimum !== undefined && input.maximum !== undefined) {
    return `an integer from ${input.minimum} to ${input.maximum}`;
  }
  if (input.minLength !== undefined && input.minLength > 1 && input.maxLength !== undefined) {
    return `${input.minLength}–${input.maxLength} characters`;
  }
  if (input.minLength !== undefined && input.minLength > 1) return `at least ${input.minLength} characters`;
  return undefined;
}

/** Greedy wrap at the page width; a code span or a link is never broken. */
function wrap(text: string, width = WIDTH): string {
  const lines: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    let line = '';
    for (const word of paragraph.match(/(?:\[[^\]]*\]\([^)]*\)|`[^`]*`|[^\s`[])+|\[/g) ?? []) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else {
        line = line ? `${line} ${word}` : word;
      }
    }
    lines.push(line, '');
  }
  return lines.join('\n').trimEnd();
}

/** The whole of docs/configuration.md. */
export function renderConfiguration(source = readFileSync(CONFIG_SOURCE, 'utf8')): string {
  const documented = readComments(source);
  const shape = environmentSchema.shape as Record<string, z.ZodType>;
  const names = new Set(documented.map((variable) => variable.name));
  const undocumented = Object.keys(shape).filter((name) => !names.has(name));
  if (undocumented.length) throw new Error(`lib/config.ts: no description read for ${undocumented.join(', ')}`);
  const input = z.toJSONSchema(environmentSchema, { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, JsonSchema>;
  };
  const output = z.toJSONSchema(environmentSchema, { io: 'output', unrepresentable: 'any' }) as {
    properties: Record<string, JsonSchema>;
  };

  const sections = [...new Set(documented.map((variable) => variable.section))];
  const parts = [
    '# Configuration',
    '',
    `<!-- Generated from lib/config.ts by \`${REGENERATE}\`: edit the comments there, not this file. -->`,
    '',
    wrap(
      'Every variable is read from the environment and validated at start-up; an empty value counts as unset. An ' +
        'invalid value stops `npm start` and `npm run worker` with every problem listed at once on stderr (exit code 2); ' +
        '`createIdentityService` throws them as one `ConfigurationError`. Unknown variables are ignored.',
    ),
    '',
    ...sections
      .map(
        (section) =>
          `- **${section}**: ${documented
            .filter((variable) => variable.section === section)
            .map((variable) => `[\`${variable.name}\`](#${variable.name.toLowerCase()})`)
            .join(', ')}`,
      )
      .flatMap((line) =>
        wrap(line, WIDTH - 2)
          .split('\n')
          .map((text, index) => (index === 0 ? text : `  ${text}`)),
      ),
  ];
  for (const section of sections) {
    parts.push('', `## ${section}`);
    for (const variable of documented.filter((entry) => entry.section === section)) {
      const schemaDefault = output.properties[variable.name]?.default;
      const shown = variable.defaultText ?? (schemaDefault === undefined ? 'unset' : `\`${String(schemaDefault)}\``);
      const values = acceptedValues(input.properties[variable.name] ?? {});
      parts.push(
        '',
        `### \`${variable.name}\``,
        '',
        wrap(`Default: ${shown}.${values ? ` Accepts ${values}.` : ''}`),
        '',
        wrap(variable.description),
      );
    }
  }
  return `${parts.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CONFIGURATION_DOC, renderConfiguration());
  console.log(`wrote ${CONFIGURATION_DOC}`);
}
