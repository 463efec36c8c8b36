import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import { resolveSettings } from '../../lib/settings.ts';
import { ConfigurationError } from '../../lib/config.ts';
import { ADMIN, startService, type RunningService } from '../support/service.ts';
import { eventually } from '../support/wait.ts';
import { capturingLogger } from '../support/logs.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** pino's numeric level for `warn`. */
const WARN = 40;
/** OTLP `SPAN_KIND_SERVER`. */
const SERVER = 2;

interface Export {
  path: string;
  contentType: string;
  body: string;
}

/** A local OTLP/HTTP collector: keeps every POST it receives and answers it as a collector does. */
interface Receiver {
  endpoint: string;
  exports: Export[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const exports: Export[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      exports.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    exports,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: KeyValue[];
  status?: { code?: number };
}
interface TraceRequest {
  resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

interface ReceivedSpan {
  span: OtlpSpan;
  attributes: Record<string, string | number | undefined>;
  serviceName: unknown;
}

const attributeValue = (value: AnyValue): string | number | undefined =>
  value.intValue !== undefined ? Number(value.intValue) : value.stringValue;
const attributesOf = (list: KeyValue[]) =>
  Object.fromEntries(list.map(({ key, value }) => [key, attributeValue(value)]));

function spansOf(receiver: Receiver): ReceivedSpan[] {
  return receiver.exports.flatMap((received) =>
    (JSON.parse(received.body) as TraceRequest).resourceSpans.flatMap((resourceSpans) => {
      const serviceName = attributesOf(resourceSpans.resource.attributes)['service.name'];
      return resourceSpans.scopeSpans.flatMap(({ spans }) =>
        spans.map((span) => ({ span, attributes: attributesOf(span.attributes), serviceName })),
      );
    }),
  );
}

const spanWithRequestId = (receiver: Receiver, requestId: string) =>
  spansOf(receiver).find(({ attributes }) => attributes['request.id'] === requestId);

describe('OpenTelemetry traces', () => {
  const receivers: Receiver[] = [];
  const services: RunningService[] = [];
  afterEach(async () => {
    await Promise.all(services.splice(0).map((running) => running.close()));
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  async function tracedService(
    receiver: Receiver,
    env: Record<string, string> = {},
    logger?: Logger,
  ): Promise<RunningService> {
    const running = await startService({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...env },
      ...(logger ? { logger } : {}),
    });
    services.push(running);
    return running;
  }

  it('exports one server span per request over OTLP/HTTP, named by its route, with status and request id, and no token, secret or query', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const running = await tracedService(receiver, { OTEL_SERVICE_NAME: 'identity-under-test' });
    const token = await running.adminToken();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const res = await running.request('/api/applications?page=1&search=query-marker-9f2c', {
      token,
      headers: { 'x-request-id': 'traced-request-1', traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(res.status).to.equal(200);
    // close() flushes the spans still waiting for their batch.
    await running.close();
    services.splice(services.indexOf(running), 1);

    const { span, attributes, serviceName } = await eventually(() => spanWithRequestId(receiver, 'traced-request-1'), {
      what: 'the span of the traced request',
    });
    expect(span.name).to.equal('GET /api/applications');
    expect(span.kind).to.equal(SERVER);
    expect(attributes).to.deep.equal({
      'http.request.method': 'GET',
      'http.route': '/api/applications',
      'http.response.status_code': 200,
      'request.id': 'traced-request-1',
    });
    expect(serviceName).to.equal('identity-under-test');
    // The caller's traceparent makes the span a child in the caller's trace.
    expect(span.traceId).to.equal(traceId);
    expect(span.parentSpanId).to.equal(parentId);

    // The token request that obtained the bearer token is a span too, named by the provider's route.
    expect(spansOf(receiver).map(({ span: { name } }) => name)).to.include('POST oidc:token');
    expect(receiver.exports.map(({ path }) => path)).to.satisfy((paths: string[]) =>
      paths.every((path) => path === '/v1/traces'),
    );
    const exported = receiver.exports.map(({ body }) => body).join('\n');
    expect(exported).not.to.include(token);
    expect(exported).not.to.include(ADMIN.secret);
    expect(exported).not.to.include(Buffer.from(`${ADMIN.id}:${ADMIN.secret}`).toString('base64'));
    expect(exported).not.to.include('query-marker-9f2c');
  });

  it('names a span by its route pattern, never the concrete path, and does not mark a 404 as an error', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const running = await tracedService(receiver);
    const res = await running.request('/api/applications/no-such-app', {
      headers: { 'x-request-id': 'missing-app-1' },
    });
    expect(res.status).to.equal(404);
    await running.close();
    services.splice(services.indexOf(running), 1);
    const { span, attributes, serviceName } = await eventually(() => spanWithRequestId(receiver, 'missing-app-1'));
    expect(span.name).to.equal('GET /api/applications/:id');
    expect(attributes['http.response.status_code']).to.equal(404);
    expect(span.status?.code ?? 0).not.to.equal(2);
    expect(serviceName).to.equal('identity-service');
  });

  it('keeps two instances in one process apart: each exports only its own spans to its own endpoint', async () => {
    const [first, second] = [await startReceiver(), await startReceiver()];
    receivers.push(first, second);
    const [one, two] = [await tracedService(first), await tracedService(second)];
    expect((await fetch(`${one.baseUrl}/healthz`, { headers: { 'x-request-id': 'instance-one' } })).status).to.equal(
      200,
    );
    expect((await fetch(`${two.baseUrl}/healthz`, { headers: { 'x-request-id': 'instance-two' } })).status).to.equal(
      200,
    );
    await Promise.all(services.splice(0).map((running) => running.close()));

    const ids = (receiver: Receiver) => spansOf(receiver).map(({ attributes }) => attributes['request.id']);
    await eventually(() => ids(first).includes('instance-one') && ids(second).includes('instance-two'), {
      what: 'both exports',
    });
    expect(ids(first)).not.to.include('instance-two');
    expect(ids(second)).not.to.include('instance-one');
    expect(spanWithRequestId(first, 'instance-one')?.span.name).to.equal('GET /healthz');
  });

  it('answers requests while the collector is unreachable, and closes within its bound with a warning', async () => {
    const gone = await startReceiver();
    await gone.close();
    const captured = capturingLogger();
    const running = await tracedService(gone, {}, captured.logger);
    expect((await fetch(`${running.baseUrl}/healthz`)).status).to.equal(200);
    const started = performance.now();
    await running.close();
    services.splice(services.indexOf(running), 1);
    // Three seconds for the last spans, not the exporter's ten seconds of retries.
    expect(performance.now() - started).to.be.below(5000);
    expect(captured.lines.filter((line) => line.level === WARN).map(({ msg }) => msg)).to.include(
      'the last traces were not exported: the OTLP collector refused them or is unreachable',
    );
  });

  it('validates the endpoint with the other settings', () => {
    for (const invalid of [
      'not a url',
      'ftp://127.0.0.1:4318',
      'http://127.0.0.1:4318/?token=x',
      'http://127.0.0.1:4318/#x',
    ]) {
      expect(() => resolveSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: invalid }), invalid).to.throw(
        ConfigurationError,
        /OTEL_EXPORTER_OTLP_ENDPOINT/,
      );
    }
    expect(() => resolveSettings({ OTEL_SERVICE_NAME: 'x'.repeat(257) })).to.throw(
      ConfigurationError,
      /OTEL_SERVICE_NAME/,
    );
    const settings = resolveSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318/otlp/' });
    expect(settings).to.include({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318/otlp',
      OTEL_SERVICE_NAME: 'identity-service',
    });
    expect(resolveSettings({}).OTEL_EXPORTER_OTLP_ENDPOINT).to.equal(undefined);
  });

  it('loads no OpenTelemetry SDK or exporter without the variable (and loads them with it)', async () => {
    // A process of its own: this one may have loaded them already for the tests above.
    const script = `
      import { registerHooks } from 'node:module';
      const loaded = new Set();
      registerHooks({ resolve(specifier, context, next) {
        // The API alone is prom-client's (a no-op until a provider is registered); the SDK and exporter are ours.
        if (specifier.startsWith('@opentelemetry/') && specifier !== '@opentelemetry/api') loaded.add(specifier);
        return next(specifier, context);
      } });
      const { createIdentityService } = await import(${JSON.stringify(pathToFileURL(`${root}app/service.ts`).href)});
      const env = { STORAGE: 'memory', LOG_LEVEL: 'silent', ADMIN_CLIENT_ID: 'test-admin', ADMIN_CLIENT_SECRET: 'test-admin-secret-0123456789' };
      const plain = await createIdentityService({ env, print: () => {} });
      await plain.close();
      const without = loaded.size;
      const traced = await createIdentityService({ env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }, print: () => {} });
      await traced.close();
      process.stdout.write(JSON.stringify({ without, with: [...loaded] }));
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code, stderr).to.equal(0);
    const loaded = JSON.parse(stdout) as { without: number; with: string[] };
    expect(loaded.without).to.equal(0);
    expect(loaded.with).to.include.members(['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http']);
  });
});
