import { expect } from 'chai';
import { startHarness, type ApiResponse, type Harness } from '../support/management/harness.ts';

type JsonSchema = {
  type?: string | string[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: unknown;
  maxLength?: number;
  maximum?: number;
  items?: JsonSchema;
};

interface Operation {
  parameters?: Array<{ name: string; in: 'path' | 'query'; schema: JsonSchema }>;
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
}

interface Probe {
  what: string;
  path: string;
  body?: unknown;
  raw?: string;
  contentType?: string;
}

const SAMPLES: Array<[string, unknown]> = [
  ['string', 'text'],
  ['number', 12.5],
  ['integer', 7],
  ['boolean', true],
  ['array', []],
  ['object', {}],
  ['null', null],
];

function typesOf(schema: JsonSchema): Set<string> | undefined {
  if (schema.anyOf) {
    const all = schema.anyOf.map(typesOf);
    return all.some((types) => types === undefined) ? undefined : new Set(all.flatMap((types) => [...types!]));
  }
  if (schema.type === undefined) return undefined;
  return new Set([schema.type].flat());
}

/** Values of a JSON type the schema does not accept (none when it accepts anything). */
function wrongValues(schema: JsonSchema): unknown[] {
  const types = typesOf(schema);
  if (!types) return [];
  const accepts = (type: string) => types.has(type) || (type === 'integer' && types.has('number'));
  const wrong = SAMPLES.filter(([type]) => !accepts(type)).map(([, value]) => value);
  if (types.has('integer')) wrong.push(1.5);
  return wrong;
}

function oversized(schema: JsonSchema): unknown[] {
  const values: unknown[] = [];
  if (typeof schema.maxLength === 'number') values.push('x'.repeat(schema.maxLength + 1));
  if (typeof schema.maximum === 'number') values.push(schema.maximum + 1);
  return values;
}

/** A minimal value of the right type, so that a probe is wrong in exactly one place. */
function plausible(schema: JsonSchema): unknown {
  const types = typesOf(schema) ?? new Set(['string']);
  if (types.has('string')) return 'x';
  if (types.has('array')) return [];
  if (types.has('boolean')) return false;
  if (types.has('integer') || types.has('number')) return 1;
  return {};
}

function bodyProbes(path: string, schema: JsonSchema): Probe[] {
  const probes: Probe[] = [
    { what: 'bad JSON', path, raw: '{"a":' },
    { what: 'a JSON array', path, raw: '[]' },
    { what: 'a JSON string', path, raw: '"text"' },
    { what: 'JSON null', path, raw: 'null' },
    { what: 'a body over 256 KiB', path, raw: JSON.stringify({ padding: 'x'.repeat(300 * 1024) }) },
    { what: 'deeply nested JSON', path, raw: `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}` },
  ];
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  const base = Object.fromEntries(required.map((name) => [name, plausible(properties[name] ?? {})]));
  if (required.length) {
    probes.push({ what: 'no body', path }, { what: 'an empty object', path, body: {} });
    probes.push({ what: 'form-encoded', path, raw: 'a=1', contentType: 'application/x-www-form-urlencoded' });
  }
  if (schema.additionalProperties === false)
    probes.push({ what: 'an unknown field', path, body: { ...base, unknownField: 1 } });
  for (const [name, property] of Object.entries(properties)) {
    for (const value of [...wrongValues(property), ...oversized(property)]) {
      probes.push({ what: `${name} = ${JSON.stringify(value)?.slice(0, 20)}`, path, body: { ...base, [name]: value } });
    }
  }
  return probes;
}

function queryProbes(path: string, names: string[]): Probe[] {
  const bad: Record<string, string[]> = {
    page: ['0', '-1', 'abc', '1.5', '1e9'],
    page_size: ['0', '101', 'many'],
  };
  const probes: Probe[] = [];
  for (const name of names) {
    for (const value of bad[name] ?? ['x'.repeat(5000)]) {
      probes.push({ what: `?${name}=${value.slice(0, 12)}`, path: `${path}?${name}=${value}` });
    }
    probes.push({ what: `?${name} twice`, path: `${path}?${name}=1&${name}=2` });
  }
  return probes;
}

/** Concrete paths: unknown but valid ids, and ids that are malformed in themselves. */
function pathVariants(template: string): Array<{ what: string; path: string; malformedId: boolean }> {
  if (!template.includes('{')) return [{ what: '', path: template, malformedId: false }];
  const fill = (value: string) => template.replace(/\{\w+\}/g, value);
  return [
    { what: 'unknown ids', path: fill('no-such-id'), malformedId: false },
    { what: 'ids over 128 characters', path: fill('i'.repeat(300)), malformedId: true },
    { what: 'percent-encoded NUL', path: fill('%00'), malformedId: true },
    { what: 'broken percent-encoding', path: fill('%E0%A4%A'), malformedId: true },
    { what: 'an operator-like id', path: fill('%24where'), malformedId: true },
  ];
}

describe('malformed input to every declared management route', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('answers 4xx with a JSON error code, never 5xx or 2xx', async () => {
    const swagger = await h.api('GET', '/swagger.json');
    const paths = swagger.body.paths as Record<string, Record<string, Operation>>;
    const probes: Array<Probe & { method: string }> = [];
    for (const [template, operations] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const path = template.replace(/^\/api/, '');
        const body = operation.requestBody?.content['application/json'].schema;
        const query = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        for (const variant of pathVariants(path)) {
          const add = (list: Probe[]) =>
            probes.push(
              ...list.map((probe) => ({
                ...probe,
                method: method.toUpperCase(),
                what: `${method.toUpperCase()} ${path} with ${variant.what} ${probe.what}`,
              })),
            );
          if (variant.malformedId || template.includes('{')) add([{ what: '', path: variant.path }]);
          if (variant.malformedId) continue;
          if (body) add(bodyProbes(variant.path, body));
          if (query.length) add(queryProbes(variant.path, query));
        }
      }
    }
    expect(probes.length).to.be.greaterThan(300);

    const failures: string[] = [];
    const started = Date.now();
    for (let i = 0; i < probes.length; i += 16) {
      await Promise.all(
        probes.slice(i, i + 16).map(async (probe) => {
          let res: ApiResponse;
          try {
            res = await h.api(probe.method, probe.path, probe.body, { raw: probe.raw, contentType: probe.contentType });
          } catch (error) {
            failures.push(`${probe.what}: ${(error as Error).message}`);
            return;
          }
          if (res.status < 400 || res.status >= 500 || typeof res.body?.code !== 'string') {
            failures.push(`${probe.what}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`);
          }
        }),
      );
    }
    expect(failures, `${failures.length} of ${probes.length} probes`).to.deep.equal([]);
    expect(Date.now() - started).to.be.lessThan(30_000);
  });
});
