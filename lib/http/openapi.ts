import { OIDC_SCOPES } from '../oidc/claims.ts';
import { z } from 'zod';
import type { RouteEventMap, RouteEventRule, RouteKey } from '../events/route-events.ts';
import type { RegisteredRoute, RouteRegistry } from './api.ts';

type JsonSchema = Record<string, unknown>;

function schemaOf(type: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(type, { io, unrepresentable: 'any' }) as JsonSchema;
}

/** Logto's search parameters, for a route that declares search fields. */
function searchParameters(fields: readonly string[]): unknown[] {
  const text = { type: 'string', maxLength: 256 };
  const mode = { type: 'string', enum: ['like', 'exact'] };
  return [
    {
      name: 'search',
      in: 'query',
      required: false,
      schema: text,
      description: `A LIKE pattern (% any run, _ one character) matched against ${fields.join(', ')}`,
    },
    ...fields.map((field) => ({ name: `search.${field}`, in: 'query', required: false, schema: text })),
    { name: 'mode', in: 'query', required: false, schema: mode },
    ...fields.map((field) => ({ name: `mode.${field}`, in: 'query', required: false, schema: mode })),
    { name: 'joint', in: 'query', required: false, schema: { type: 'string', enum: ['or', 'and'] } },
    { name: 'isCaseSensitive', in: 'query', required: false, schema: { type: 'string', enum: ['true', 'false'] } },
  ];
}

function parametersOf(route: RegisteredRoute): unknown[] {
  const parameters: unknown[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = schemaOf(schema, 'input');
    const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      parameters.push({ name, in: where, required: where === 'path' || required.has(name), schema: property });
    }
  }
  if (route.search) parameters.push(...searchParameters(route.search));
  return parameters;
}

/** The webhook events of an operation, from the one map that also publishes them. */
export interface OperationEvents {
  map: RouteEventMap;
  /** The API prefix the map's routes are relative to. */
  prefix: string;
}

function eventRulesOf(route: RegisteredRoute, events: OperationEvents | undefined): readonly RouteEventRule[] {
  if (!events || !route.path.startsWith(events.prefix)) return [];
  return events.map[`${route.method.toUpperCase()} ${route.path.slice(events.prefix.length)}` as RouteKey] ?? [];
}

function describeRule(rule: RouteEventRule): string {
  return rule.note ? `${rule.event} (${rule.note})` : rule.event;
}

function operationOf(route: RegisteredRoute, events: OperationEvents | undefined): Record<string, unknown> {
  const responses: Record<string, unknown> = {
    [route.status]: route.response
      ? { description: 'Success', content: { 'application/json': { schema: schemaOf(route.response, 'output') } } }
      : { description: 'Success' },
    ...(route.alternativeStatus && {
      [route.alternativeStatus]:
        route.alternativeWithBody && route.response
          ? { description: 'Success', content: { 'application/json': { schema: schemaOf(route.response, 'output') } } }
          : { description: 'Success' },
    }),
    400: { $ref: '#/components/responses/Error' },
  };
  if (route.scope || route.ownAuthentication) {
    responses[401] = { $ref: '#/components/responses/Error' };
    responses[403] = { $ref: '#/components/responses/Error' };
  }
  if (route.params) responses[404] = { $ref: '#/components/responses/Error' };
  const operation: Record<string, unknown> = {
    summary: route.summary,
    tags: [route.tag],
    parameters: parametersOf(route),
    responses,
  };
  if (route.scope) operation.security = [{ [route.security ?? 'bearer']: [route.scope] }];
  else if (route.ownAuthentication) operation.security = [{ [route.ownAuthentication]: [] }];
  const rules = eventRulesOf(route, events);
  if (rules.length) {
    operation['x-webhook-events'] = rules.map((rule) => rule.event);
    operation.description = `Webhook events: ${rules.map(describeRule).join('; ')}.`;
  }
  if (route.body) {
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: schemaOf(route.body, 'input') } },
    };
  }
  return operation;
}

/** OpenAPI 3.1 `webhooks`: one POST per event type, its body the event's JSON Schema. */
function webhooksOf(schemas: Record<string, Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, { $schema: _dialect, ...schema }]) => [
      name,
      {
        post: {
          summary: `${name}, as a hook subscribed to it receives it (also at GET /api/hook-events/${name}/schema)`,
          requestBody: { required: true, content: { 'application/json': { schema } } },
          responses: { '2XX': { description: 'Received: any 2xx ends the delivery' } },
        },
      },
    ]),
  );
}

/**
 * The OpenAPI 3.1 document of every declared route, built from the same schemas that validate them; each
 * operation that publishes webhook events lists them (`x-webhook-events`, and a line of its description).
 */
export function buildOpenApi(
  registry: RouteRegistry,
  info: { baseUrl: string; version: string },
  events?: OperationEvents,
  webhooks?: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of registry.routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const operations = paths[path] ?? {};
    operations[route.method] = operationOf(route, events);
    paths[path] = operations;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Identity service API', version: info.version },
    servers: [{ url: info.baseUrl }],
    paths,
    ...(webhooks && { webhooks: webhooksOf(webhooks) }),
    components: {
      securitySchemes: {
        bearer: {
          type: 'oauth2',
          description: 'A JWT access token for the management API resource (client credentials grant).',
          flows: { clientCredentials: { tokenUrl: `${info.baseUrl}/oidc/token`, scopes: {} } },
        },
        resourceServer: {
          type: 'http',
          scheme: 'basic',
          description:
            'HTTP Basic with the client id and secret of an application that serves an API: one holding a ' +
            'scope of that API through its machine-to-machine roles, as the introspection endpoint authenticates it. ' +
            'Anyone else is 401 auth.unauthorized, an application serving no API 403 auth.not_a_resource_server.',
        },
        user: {
          type: 'oauth2',
          description:
            "An end user's own opaque access token, issued by the authorization-code flow without a resource (Account API).",
          flows: {
            authorizationCode: {
              authorizationUrl: `${info.baseUrl}/oidc/auth`,
              tokenUrl: `${info.baseUrl}/oidc/token`,
              scopes: Object.fromEntries(OIDC_SCOPES.map((scope) => [scope, `the ${scope} scope`])),
            },
          },
        },
      },
      responses: {
        Error: {
          description: 'Error',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['code', 'message'],
                properties: { code: { type: 'string' }, message: { type: 'string' }, data: {} },
              },
            },
          },
        },
      },
    },
  };
}
