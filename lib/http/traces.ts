import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { afterResponse, routeOf } from './access-log.ts';

export interface Traces {
  /** Records one server span per request; goes right after the access log, which gives the request its id. */
  middleware: Middleware;
  /** Exports the spans still buffered (waiting at most CLOSE_MS for the collector), then stops the exporter. */
  close(): Promise<void>;
}

export interface TracesOptions {
  /** OTLP/HTTP base URL; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  serviceName: string;
  serviceVersion: string;
  logger: Logger;
}

/**
 * How long closing waits for the last spans: a collector that is down would otherwise hold it through every retry
 * of the exporter (about ten seconds).
 */
const CLOSE_MS = 3000;

/**
 * One tracer provider per service instance, never registered as the OpenTelemetry API's global one: two instances in
 * one process (and a host's own tracing) must not take each other's spans. The modules are imported here, only when
 * an endpoint is configured, so a service without traces neither loads them nor pays for them.
 */
export async function createTraces(options: TracesOptions): Promise<Traces> {
  const { logger } = options;
  const [
    api,
    { ExportResultCode, W3CTraceContextPropagator },
    { resourceFromAttributes },
    { BatchSpanProcessor, TracerProvider },
    { OTLPTraceExporter },
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const otlp = new OTLPTraceExporter({ url: `${options.endpoint}/v1/traces` });
  // The SDK reports failed exports to the API's global diagnostics, which are off: say it here, once per outage.
  let failing = false;
  const exporter: SpanExporter = {
    export(spans, done) {
      otlp.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS && !failing) {
          failing = true;
          logger.warn(
            { error: result.error?.message },
            'traces not exported: the OTLP collector refused them or is unreachable',
          );
        } else if (result.code === ExportResultCode.SUCCESS && failing) {
          failing = false;
          logger.info('traces exported again');
        }
        done(result);
      });
    },
    shutdown: () => otlp.shutdown(),
    forceFlush: () => otlp.forceFlush(),
  };
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': options.serviceName,
      'service.version': options.serviceVersion,
    }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('identity-service', options.serviceVersion);
  const propagator = new W3CTraceContextPropagator();

  const middleware: Middleware = async (ctx, next) => {
    // An explicit parent context rather than the global context manager, which this provider never installs.
    const parent = propagator.extract(api.ROOT_CONTEXT, ctx.headers, api.defaultTextMapGetter);
    const span = tracer.startSpan(ctx.method, { kind: api.SpanKind.SERVER }, parent);
    await afterResponse(ctx, next, (status) => {
      // The route pattern and nothing else of the request: no path ids, query string, header or body.
      const route = routeOf(ctx);
      span.updateName(`${ctx.method} ${route}`);
      span.setAttributes({
        'http.request.method': ctx.method,
        'http.route': route,
        'http.response.status_code': status,
        ...(typeof ctx.state.requestId === 'string' ? { 'request.id': ctx.state.requestId } : {}),
      });
      // A server span is in error only when the server failed; a 4xx is the caller's.
      if (status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end();
    });
  };

  return {
    middleware,
    async close() {
      let timer: NodeJS.Timeout | undefined;
      const shutdown = provider.shutdown().then(
        () => true,
        () => false,
      );
      const timedOut = new Promise<false>((resolve) => (timer = setTimeout(resolve, CLOSE_MS, false)));
      const exported = await Promise.race([shutdown, timedOut]);
      clearTimeout(timer);
      if (!exported)
        logger.warn('the last traces were not exported: the OTLP collector refused them or is unreachable');
    },
  };
}
