import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import type { ConnectorType } from '../../lib/experience/connectors.ts';
import { email } from '../users/schemas.ts';
import { requestOf } from './index.ts';
import { verificationResponse } from './schemas.ts';

const tag = 'Experience';
const byConnector = z.object({ connectorId: idParam });
const absoluteUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value), 'must be an absolute URL');

const authorizationBody = z
  .object({
    state: z.string().min(8).max(512).describe('Sent to the provider and required back in its callback'),
    redirectUri: absoluteUrl.describe('Where the provider sends the browser back (registered at the provider)'),
  })
  .strict();

const verifyBody = z
  .object({
    verificationId: z.string().min(1).max(128),
    connectorData: z
      .record(z.string().max(64), z.string().max(8192))
      .refine((data) => Object.keys(data).length <= 32, 'at most 32 parameters')
      .describe("The query parameters of the provider's callback: code, state, and iss or error"),
  })
  .strict();

/**
 * Logto's social and enterprise SSO verifications: the client gets the provider's authorization URL, sends the
 * browser there, and hands back the callback's parameters; identification then signs in, links or registers.
 */
export function experienceConnectorRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'experience'>): void {
  const { experience } = core;

  for (const [segment, type, name] of [
    ['social', 'Social', 'social'],
    ['sso', 'EnterpriseSso', 'enterprise SSO'],
  ] as const) {
    declare(api, {
      method: 'post',
      path: `/experience/verification/${segment}/:connectorId/authorization-uri`,
      tag,
      scope: null,
      params: byConnector,
      body: authorizationBody,
      response: z.object({ authorizationUri: z.string(), verificationId: z.string() }),
      summary: `Start a ${name} sign-in: the provider's authorization URL (PKCE; state and nonce checked at verify)`,
      handler: ({ koa, params, body }) =>
        experience.connectorAuthorization(requestOf(koa), type as ConnectorType, params.connectorId, body),
    });

    declare(api, {
      method: 'post',
      path: `/experience/verification/${segment}/:connectorId/verify`,
      tag,
      scope: null,
      params: byConnector,
      body: verifyBody,
      response: verificationResponse,
      summary: `Verify the provider's callback of a ${name} sign-in (state, code, ID token and nonce)`,
      handler: ({ koa, params, body }) =>
        experience.verifyConnector(
          requestOf(koa),
          type as ConnectorType,
          { connectorId: params.connectorId, verificationId: body.verificationId },
          body.connectorData,
        ),
    });
  }

  declare(api, {
    method: 'get',
    path: '/experience/sso-connectors',
    tag,
    scope: null,
    query: z.object({ email }).strict(),
    response: z.object({ connectorIds: z.array(z.string()) }),
    summary: "The enterprise SSO connectors serving an email address's domain",
    handler: async ({ query }) => ({
      connectorIds: (await core.experience.ssoConnectorsFor(query.email)).map((connector) => connector.id),
    }),
  });
}
