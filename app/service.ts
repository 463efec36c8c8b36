import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import compose from 'koa-compose';
import type Provider from 'oidc-provider';
import type { Environment } from '../lib/config.ts';
import { createLogger, type Logger } from '../lib/logger.ts';
import { resolveSettings, type Settings } from '../lib/settings.ts';
import { openStores, type InjectedStores } from './stores.ts';
import { settleGeneratedKeys } from '../lib/generated-keys.ts';
import { createCapabilities, openRecords, prepareRecords, type Records } from './capabilities.ts';
import { createAuthorization } from '../lib/roles/authorization.ts';
import { loadSigningKeys } from '../lib/oidc/keys.ts';
import { providerSigningKeys } from '../lib/oidc/signer.ts';
import { OIDC_MODELS, prepareOidcCollections } from '../lib/oidc/adapter.ts';
import { createProvider } from '../lib/oidc/provider.ts';
import { mountProvider } from '../lib/oidc/mount.ts';
import { LOGTO_MANAGEMENT_INDICATOR, bootstrap } from '../lib/bootstrap.ts';
import { EventBus } from '../lib/events/bus.ts';
import { routeEventsMiddleware } from '../lib/events/route-events.ts';
import { createOperationEvents } from '../lib/events/operation.ts';
import { MANAGEMENT_EVENTS } from '../lib/events/management-events.ts';
import { eventJsonSchemas } from '../lib/events/schemas.ts';
import { createManagementAuth } from '../lib/management/auth.ts';
import { RouteRegistry, rememberStaticMatches, type ApiRouterDeps } from '../lib/http/api.ts';
import { remembered } from '../lib/data/remembered.ts';
import { buildOpenApi } from '../lib/http/openapi.ts';
import { jsonErrorMiddleware } from '../lib/http/errors.ts';
import { parseJsonBody, refuseEncodedBodies } from '../lib/http/body.ts';
import { providerPageSecurity } from '../lib/http/page-security.ts';
import { errors } from '../lib/errors.ts';
import { ownCookieKeys } from '../lib/http/cookies.ts';
import { healthMiddleware } from '../lib/http/health.ts';
import { when } from '../lib/http/when.ts';
import { composeMiddleware, extraTokenClaimsHook, registerGrantType } from '../lib/oidc/boundary.ts';
import { VERSION } from '../lib/version.ts';
import type { ServiceCore } from '../lib/core.ts';
import { managementRoutes } from '../routes/index.ts';
import { interactionRoutes } from '../routes/interaction/index.ts';
import { firstPagePath } from '../routes/interaction/first-screen.ts';
import { impersonationRoutes } from '../routes/impersonation/index.ts';
import { jwtCustomizerRoutes } from '../routes/jwt-customizer/index.ts';
import { createSubjectTokens } from '../lib/impersonation/subject-tokens.ts';
import { createImpersonationAudit } from '../lib/impersonation/audit.ts';
import { createImpersonation } from '../lib/impersonation/library.ts';
import { createImpersonations } from '../lib/impersonation/impersonations.ts';
import { createJwtCustomizer, type JwtCustomizer } from '../lib/jwt-customizer/index.ts';
import type { FunctionCustomizer } from '../lib/jwt-customizer/claims.ts';
import { ExchangeRegistry } from '../extensions/token-exchange/registry.ts';
import { createActorVerifier } from '../extensions/token-exchange/actor.ts';
import * as tokenExchange from '../extensions/token-exchange/grant.ts';
import { createExchangedJwtCustomizer } from '../extensions/token-exchange/scope-claim.ts';
import { introspectImpersonationJwts } from '../extensions/token-exchange/introspection.ts';
import { createIntrospectionPolicy } from '../lib/oidc/introspection.ts';
import { createExtraTokenClaims } from '../extensions/custom-claims/index.ts';
import { enforceGrantLimits } from '../extensions/grant-limit/index.ts';
import type { Webhooks } from '../lib/webhooks/index.ts';
import { hookRoutes } from '../routes/hooks/index.ts';
import { eventRoutes } from '../routes/events/index.ts';
import { createExperience } from '../lib/experience/index.ts';
import { experienceRoutes } from '../routes/experience/index.ts';
import { createAccount } from '../lib/account/index.ts';
import { createAccountCenter } from '../lib/account/center.ts';
import { webauthnWellKnown } from '../routes/mfa/well-known.ts';
import { accountRoutes } from '../routes/account/index.ts';
import { createMessaging, type MessageTemplates, type MessagingService } from '../lib/messaging/index.ts';
import { createMetrics } from '../lib/metrics/registry.ts';
import { metricsEndpoint } from '../lib/metrics/endpoint.ts';
import { observeTokenEvents } from '../lib/metrics/token-events.ts';
import { accessLog } from '../lib/http/access-log.ts';
import { createRequestScope } from '../lib/http/request-id.ts';
import { createTraces, type Traces } from '../lib/http/traces.ts';
import { createRateLimits } from '../lib/rate-limits/index.ts';
import { clientAuthLimit, clientGate, tokenRequestGate } from '../lib/rate-limits/oidc.ts';
import { createOutboxRecorder } from '../lib/outbox/recorder.ts';
import { createWebhookRuntime, type WebhookRuntime } from './webhook-runtime.ts';
import { transactionalRequests } from '../lib/outbox/middleware.ts';
import { createLockout } from '../lib/sign-in/lockout.ts';
import { releaseContexts } from '../lib/http/release-context.ts';
import { createInFlight } from '../lib/http/in-flight.ts';
import { DRAIN_MS } from '../lib/shutdown.ts';
import { ensureConsoleApplication } from '../lib/console/application.ts';
import { createConsoleAdmins } from '../lib/console/admins.ts';
import { consoleMiddleware, prepareConsoleAdmins } from '../lib/console/index.ts';
import { loadConsoleBundle } from '../lib/console/assets.ts';
import { consoleRoutes } from '../routes/console/index.ts';

export interface IdentityServiceOptions {
  /** Environment to read configuration from; defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /** Configuration values that win over the environment. */
  config?: Partial<Environment>;
  logger?: Logger;
  /** Pre-built stores (tests, or hosts that share connections); the service does not close them. */
  stores?: InjectedStores;
  /**
   * Refuse to start (StoreUnavailableError) while Redis does not answer, as `npm start` does. Default: start anyway and
   * answer 503 on `/readyz` (and on what needs Redis) until it is back. An unreachable MongoDB always refuses.
   */
  requireStores?: boolean;
  /** Where generated admin credentials are printed (once); defaults to stdout. */
  print?: (text: string) => void;
  /**
   * Custom access-token claims computed in-process (takes precedence over a stored script):
   * `{ getCustomJwtClaims: async ({ token, context, environmentVariables, api }) => ({ ... }) }`.
   */
  jwtCustomizer?: FunctionCustomizer;
  /**
   * Runs webhook delivery in this instance (default `WEBHOOK_WORKER_IN_WEB`). Off, jobs wait in the queue
   * for `npm run worker`. An injected queue is consumed but not closed by `close()`: its owner closes it.
   */
  webhookWorker?: boolean;
  /**
   * Wording of verification-code and invitation messages per purpose (`{ SignIn: { subject, text, html, sms } }`);
   * wins over MESSAGE_TEMPLATES_DIR, which wins over the defaults.
   */
  messageTemplates?: MessageTemplates;
}

export interface IdentityService {
  /** The Koa app to listen with or mount under any prefix of a host app. */
  app: Koa;
  provider: Provider;
  settings: Settings;
  core: ServiceCore;
  /**
   * Every capability's stored records (its repositories), for a host's own migrations and checks of what is stored.
   * Writes here skip the capabilities' rules and publish no event; routes and extensions never receive them.
   */
  records: Records;
  webhooks: Webhooks;
  /** The bootstrap admin application's client id. */
  adminClientId: string;
  /** Stops background work and closes the connections the service opened. */
  close(): Promise<void>;
}

const API_PREFIX = '/api';
/**
 * Sign-in pages the provider answers itself, writing its redirect before the handler returns: in a transaction
 * the browser could follow it before the commit. They publish no events.
 */
const SELF_ANSWERING_PAGES = /^\/interaction\/[^/]+\/(consent|abort)$/;

/**
 * Answers an API request no route handled: `route.method_not_allowed` when the router found its path served with
 * other methods (or does not know the method at all), `route.not_found` otherwise. It wraps the router rather than
 * follow it because the router's method check runs once the middleware after it has returned.
 */
const answeredOrNotFound: Middleware = async (ctx, next) => {
  await next();
  if (ctx.body !== undefined) return;
  if (ctx.status === 405 || ctx.status === 501) throw errors.methodNotAllowed();
  if (ctx.status === 404) throw errors.routeNotFound();
};

/** Builds one independent service instance: no module state, so several can live in one process. */
export async function createIdentityService(options: IdentityServiceOptions = {}): Promise<IdentityService> {
  const settings = resolveSettings(options.env ?? process.env, options.config);
  const requestScope = createRequestScope(options.logger ?? createLogger(settings.LOG_LEVEL));
  const { logger } = requestScope;
  const stores = await openStores(settings, logger, options.stores, { requireReachable: options.requireStores });
  let messaging: MessagingService | undefined;
  let runtime: WebhookRuntime | undefined;
  let traces: Traces | undefined;
  let jwtCustomizer: JwtCustomizer | undefined;
  try {
    await settleGeneratedKeys(settings, stores.documents);
    if (settings.OTEL_EXPORTER_OTLP_ENDPOINT) {
      traces = await createTraces({
        endpoint: settings.OTEL_EXPORTER_OTLP_ENDPOINT,
        serviceName: settings.OTEL_SERVICE_NAME,
        serviceVersion: VERSION,
        logger,
      });
    }
    const metrics = createMetrics({ queueDepth: () => stores.queue.pendingCount() });
    if (!settings.METRICS_TOKEN) {
      logger.warn(
        'GET /metrics is open to anyone who reaches this service: set METRICS_TOKEN, or keep it off the public network',
      );
    }
    const rateLimits = createRateLimits({ kv: stores.kv, settings, metrics });
    // The data events libraries emit, collected per request or flow step (see OperationEvents).
    const operations = createOperationEvents();
    const records = openRecords(stores.documents);
    await prepareRecords(records);
    await prepareOidcCollections(stores.documents, OIDC_MODELS);
    const signingKeys = await loadSigningKeys({ configured: settings.SIGNING_KEYS, store: stores.documents });
    const print = options.print ?? ((text: string) => process.stdout.write(text));
    const { adminClientId } = await bootstrap({
      repositories: records,
      managementIndicator: settings.managementIndicator,
      adminClientId: settings.ADMIN_CLIENT_ID,
      adminClientSecret: settings.ADMIN_CLIENT_SECRET,
      keptUntilExit: stores.documents.kind === 'memory',
      logger,
      print,
    });
    await ensureConsoleApplication(records, settings.baseUrl);
    const authorization = createAuthorization(records, stores.documents);
    // An application by id, read by the token exchange (its opt-in) and the customizer (the script's context) on
    // every token: remembered until an application changes (see remembered).
    const applicationOf = remembered(stores.documents, ['applications'], (id: string) =>
      records.applications.findById(id),
    );
    const accountCenter = createAccountCenter(stores.documents);
    const capabilities = createCapabilities(records, {
      emit: operations.emit,
      webauthnRelatedOrigins: accountCenter.relatedOrigins,
      defaultAccessTokenTtl: settings.ACCESS_TOKEN_TTL_SECONDS,
      cookieKeys: settings.cookieKeys,
      allowedNetworks: settings.WEBHOOK_ALLOWED_NETWORKS,
      mfaSecretKeys: settings.mfaSecretKeys,
      baseUrl: settings.baseUrl,
      kv: stores.kv,
      endpointNetworks: settings.CONNECTOR_ENDPOINT_NETWORKS,
      outboundDeadlineMs: settings.OUTBOUND_TIMEOUT_MS,
    });
    const consoleAdmins = createConsoleAdmins({
      repositories: records,
      users: capabilities.users,
      signInExperience: capabilities.signInExperience,
      kv: stores.kv,
      logger,
    });
    await prepareConsoleAdmins({
      admins: consoleAdmins,
      settings,
      logger,
      print,
    });
    const audit = createImpersonationAudit(stores.documents);
    await audit.prepare();
    const subjectTokens = createSubjectTokens(stores.kv, settings.SUBJECT_TOKEN_TTL_SECONDS);
    const exchanges = new ExchangeRegistry();
    jwtCustomizer = createJwtCustomizer({
      store: stores.documents,
      fn: options.jwtCustomizer,
      logger,
      metrics,
      sandbox: {
        timeoutMs: settings.JWT_CUSTOMIZER_TIMEOUT_MS,
        memoryBytes: settings.JWT_CUSTOMIZER_MEMORY_MB * 1024 * 1024,
        workers: settings.JWT_CUSTOMIZER_WORKERS,
      },
      scriptExemptAudiences: [settings.managementIndicator, LOGTO_MANAGEMENT_INDICATOR],
    });
    const provider = createProvider({
      issuer: settings.issuer,
      keys: await providerSigningKeys(signingKeys.keys),
      signingAlg: signingKeys.alg,
      cookieKeys: settings.cookieKeys,
      store: stores.documents,
      repositories: records,
      authorization,
      accessTokenTtl: settings.ACCESS_TOKEN_TTL_SECONDS,
      interactionUrl: `${settings.baseUrl}/interaction`,
      interactionStart: firstPagePath,
      logger,
      trustProxy: settings.TRUST_PROXY,
      extraTokenClaims: extraTokenClaimsHook(
        createExtraTokenClaims({
          customizer: jwtCustomizer.claims,
          exchanges,
          users: capabilities.users,
          organizations: capabilities.organizations,
          applicationOf,
        }),
      ),
      customizeJwt: createExchangedJwtCustomizer(exchanges),
      clientGate: clientGate(rateLimits.clientAuth),
      // Off by default: then the token endpoint's lookups stay untouched.
      tokenRequestGate:
        settings.TOKEN_RATE_LIMIT_PER_CLIENT > 0 ? tokenRequestGate(rateLimits.countTokenRequest) : undefined,
    });
    observeTokenEvents(provider, { logger, metrics });
    runtime = await createWebhookRuntime({ settings, logger, stores, metrics });
    const { webhooks } = runtime;
    const bus = new EventBus(
      createOutboxRecorder({
        store: stores.documents,
        outbox: runtime.outbox,
        log: runtime.events,
        wake: runtime.wake,
      }),
    );
    messaging = await createMessaging({ settings, logger, kv: stores.kv, bus, templates: options.messageTemplates });
    const impersonations = createImpersonations(stores.documents, {
      revokeGrants: records.oidcRevocation.revokeGrants,
    });
    await impersonations.prepare();
    const impersonation = createImpersonation({
      store: stores.documents,
      repositories: records,
      authorization,
      subjectTokens,
      audit,
      impersonations,
      bus,
      policy: {
        maxTokenTtlSeconds: settings.IMPERSONATION_TOKEN_MAX_TTL_SECONDS,
        protectedRoleNames: settings.IMPERSONATION_PROTECTED_ROLES,
      },
      settings: async () => (await capabilities.signInExperience.get()).impersonation,
      messaging,
    });
    registerGrantType(
      provider,
      tokenExchange.grantType,
      tokenExchange.createTokenExchangeHandler({
        applicationOf,
        impersonation,
        exchanges,
        signingAlg: signingKeys.alg,
        verifyActor: createActorVerifier({
          issuer: settings.issuer,
          publicKeys: signingKeys.publicKeys,
          users: records.users,
        }),
      }),
      tokenExchange.parameters,
    );
    const introspectionPolicy = createIntrospectionPolicy({ repositories: records, authorization });
    introspectImpersonationJwts(provider, {
      issuer: settings.issuer,
      publicKeys: signingKeys.publicKeys,
      isActive: impersonation.isActive,
      allowed: (client, token) => introspectionPolicy(undefined, client, token),
    });
    enforceGrantLimits(provider, { applications: capabilities.applications, grants: records.oidcRevocation, bus });
    const lockout = createLockout({
      kv: stores.kv,
      bus,
      // Logto's sentinelPolicy, where the sign-in experience sets it, over the configured defaults.
      policy: async () => {
        const { sentinelPolicy } = await capabilities.signInExperience.get();
        return {
          threshold: sentinelPolicy.maxAttempts ?? settings.LOCKOUT_THRESHOLD,
          lockSeconds:
            sentinelPolicy.lockoutDuration === undefined
              ? settings.LOCKOUT_SECONDS
              : sentinelPolicy.lockoutDuration * 60,
        };
      },
    });
    const core: ServiceCore = {
      settings,
      logger,
      store: stores.documents,
      kv: stores.kv,
      bus,
      events: runtime.events,
      authorization,
      provider,
      ...capabilities,
      impersonation,
      webhooks,
      messaging,
      experience: createExperience({
        provider,
        kv: stores.kv,
        bus,
        operations,
        repositories: records,
        users: capabilities.users,
        organizationJit: capabilities.organizations.jit,
        signInExperience: capabilities.signInExperience,
        messaging,
        baseUrl: settings.baseUrl,
        connectors: capabilities.connectors,
        identities: capabilities.connectors.identities,
        upstreams: capabilities.connectors.upstreams,
        mfa: capabilities.mfa,
        passkeys: capabilities.mfa.passkeys,
        lockout,
      }),
      account: createAccount({
        provider,
        center: accountCenter,
        kv: stores.kv,
        bus,
        repositories: records,
        users: capabilities.users,
        signInExperience: capabilities.signInExperience,
        messaging,
        lockout,
        impersonationActive: impersonation.isActive,
      }),
      metrics,
      rateLimits,
      consoleAdmins,
    };
    const stopCountingLockouts = core.bus.subscribe(async (events) => {
      for (const event of events) if (event.event === 'Identifier.Lockout') metrics.lockouts.inc();
    });

    const registry = new RouteRegistry();
    const auth = createManagementAuth({
      issuer: settings.issuer,
      audience: [settings.managementIndicator, LOGTO_MANAGEMENT_INDICATOR],
      publicKeys: signingKeys.publicKeys,
      failures: rateLimits.managementAuth,
      onLimited: () => rateLimits.limited('management_auth'),
    });
    const router = new Router({ prefix: API_PREFIX });
    rememberStaticMatches(router);
    const api: ApiRouterDeps = {
      router,
      prefix: API_PREFIX,
      registry,
      requireScope: (scope) => compose([auth.authenticate, auth.requireScope(scope)]),
    };
    managementRoutes(api, core);
    hookRoutes(api, core);
    eventRoutes(api, core);
    impersonationRoutes(api, core);
    jwtCustomizerRoutes(api, { jwtCustomizer });
    experienceRoutes(api, core);
    accountRoutes(api, core);
    consoleRoutes(api, core);
    router.get('/swagger.json', (ctx) => {
      ctx.body = buildOpenApi(
        registry,
        { baseUrl: settings.baseUrl, version: VERSION },
        { map: MANAGEMENT_EVENTS, prefix: API_PREFIX },
        eventJsonSchemas(),
      );
    });

    const apiStack = composeMiddleware([
      jsonErrorMiddleware(logger),
      parseJsonBody(256 * 1024),
      // Inside the transaction, so that the events of a request commit with its change.
      transactionalRequests(stores.documents, (ctx) => registry.needsNoTransaction(ctx)),
      routeEventsMiddleware({ bus: core.bus, prefix: API_PREFIX, operations, documented: MANAGEMENT_EVENTS }),
      answeredOrNotFound,
      router.routes(),
      // Marks a path served with other methods 405 (with `Allow`), an unknown method 501; the wrapper answers them.
      router.allowedMethods(),
    ]);

    const app = new Koa({ proxy: settings.TRUST_PROXY, keys: settings.cookieKeys });
    app.on('error', (error: Error) => logger.debug({ err: error }, 'request error'));
    // Outermost: it clears a context only once every other layer is done with it.
    app.use(releaseContexts(app));
    const inFlight = createInFlight();
    app.use(inFlight.middleware);
    // First, so every request has its id and its access-log line whatever answers it.
    app.use(accessLog(requestScope, metrics));
    if (traces) app.use(traces.middleware);
    app.use(metricsEndpoint(metrics, settings.METRICS_TOKEN));
    app.use(ownCookieKeys(settings.cookieKeys));
    app.use(
      healthMiddleware([
        { name: 'documents', check: () => stores.documents.ping() },
        { name: 'keyValue', check: () => stores.kv.ping() },
      ]),
    );
    app.use(webauthnWellKnown(accountCenter.relatedOrigins, logger));
    app.use(consoleMiddleware({ bundle: loadConsoleBundle(logger), settings }));
    app.use(providerPageSecurity({ prefix: '/oidc', serviceUrl: settings.baseUrl }));
    app.use(refuseEncodedBodies('/oidc'));
    app.use(clientAuthLimit({ failures: rateLimits.clientAuth, onLimited: () => rateLimits.limited('client_auth') }));
    app.use(mountProvider(provider, settings.issuer));
    // Only the sign-in pages' own paths reach their router, which would otherwise test each of its patterns against
    // every other request too.
    app.use(
      when(
        (ctx) => ctx.path.startsWith('/interaction/'),
        composeMiddleware([
          when((ctx) => !SELF_ANSWERING_PAGES.test(ctx.path), transactionalRequests(stores.documents)),
          interactionRoutes(core),
        ]),
      ),
    );
    app.use(async (ctx, next) => {
      if (ctx.path === API_PREFIX || ctx.path.startsWith(`${API_PREFIX}/`)) return apiStack(ctx, next);
      return next();
    });

    runtime.relay();
    // Replays run where the API that starts them runs (workers only deliver).
    await runtime.webhooks.replays.resume();
    if (options.webhookWorker ?? settings.WEBHOOK_WORKER_IN_WEB) {
      // Not awaited: with Redis down the service still starts (and answers 503); delivery begins once it is up.
      runtime.deliver().catch((error: unknown) => logger.error({ err: error }, 'webhook worker did not start'));
    } else if (stores.queue.kind === 'memory') {
      logger.warn('webhook worker disabled with the in-process queue: deliveries will wait for ever');
    }

    const running = runtime;
    return {
      app,
      provider,
      settings,
      core,
      records,
      webhooks,
      adminClientId,
      async close() {
        // Requests being answered finish on open stores; a host stops sending new ones before it closes us.
        await inFlight.drained(DRAIN_MS);
        // After the drain, so the spans of the last requests are exported too.
        await traces?.close();
        stopCountingLockouts();
        await running.stop();
        await jwtCustomizer?.close();
        await messaging?.close();
        // The queue closes first: its consumer finishes the attempts in flight while the stores are open.
        await stores.close();
        running.close();
      },
    };
  } catch (error) {
    await runtime?.stop();
    await messaging?.close();
    await traces?.close();
    await stores.close();
    throw error;
  }
}
