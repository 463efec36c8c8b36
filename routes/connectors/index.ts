import { z } from 'zod';
import { SOCIAL_FACTORIES, SOCIAL_FACTORY_IDS, type SocialFactoryId } from '../../lib/connectors/configs.ts';
import { errors } from '../../lib/errors.ts';
import { declare, idParam, optionalPagination, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import {
  connectorFactory,
  connectorResponse,
  createConnectorBody,
  createSsoConnectorBody,
  factoryOf,
  presentConnector,
  presentSsoConnector,
  ssoConnectorResponse,
  ssoProvider,
  updateConnectorBody,
  updateSsoConnectorBody,
} from './schemas.ts';

const byId = z.object({ id: idParam });
const isFactory = (id: string): id is SocialFactoryId => Object.hasOwn(SOCIAL_FACTORIES, id);

/**
 * Social connectors (a generic OIDC and a generic OAuth 2.0 one) and enterprise SSO connectors (OIDC), as
 * Logto's management API has them. Client secrets are write-only: answered masked.
 */
export function connectorRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'connectors'>): void {
  const library = core.connectors;
  const tag = 'Connectors';

  declare(api, {
    method: 'get',
    path: '/connector-factories',
    tag,
    summary: 'List the kinds of social connector that can be created',
    query: z.object({}).strict(),
    response: z.array(connectorFactory),
    handler: async () => SOCIAL_FACTORY_IDS.map(factoryOf),
  });

  declare(api, {
    method: 'get',
    path: '/connectors',
    tag,
    summary: 'List social connectors (`target`: only the one serving that target)',
    query: z.object({ target: z.string().min(1).max(64).optional() }).strict(),
    response: z.array(connectorResponse),
    async handler({ query }) {
      const all = (await library.listSocial()).map(presentConnector);
      return query.target === undefined ? all : all.filter((connector) => connector.target === query.target);
    },
  });

  declare(api, {
    method: 'post',
    path: '/connectors',
    tag,
    summary:
      'Create a social connector (its config is checked, and its discovery document fetched when it names an issuer)',
    body: createConnectorBody,
    status: 201,
    response: connectorResponse,
    async handler({ body }) {
      // Logto's order: the factory first, then the target its standard connectors need.
      if (!isFactory(body.connectorId)) {
        throw errors.unprocessable(
          'connector.not_found_with_connector_id',
          `no connector factory ${body.connectorId.slice(0, 64)}; see GET /api/connector-factories`,
        );
      }
      const { metadata } = body;
      if (!metadata)
        throw errors.connector(
          'connector.should_specify_target',
          'metadata.target is required: it names the identity on users',
        );
      return presentConnector(
        await library.createSocial({ ...body, metadata, config: body.config ?? {}, connectorId: body.connectorId }),
      );
    },
  });

  declare(api, {
    method: 'get',
    path: '/connectors/:id',
    tag,
    summary: 'Get a social connector',
    params: byId,
    response: connectorResponse,
    handler: async ({ params }) => presentConnector(await library.mustFindSocial(params.id)),
  });

  declare(api, {
    method: 'patch',
    path: '/connectors/:id',
    tag,
    summary: 'Update a social connector',
    refuseEmptyBody: true,
    params: byId,
    body: updateConnectorBody,
    response: connectorResponse,
    handler: async ({ params, body }) => presentConnector(await library.updateSocial(params.id, body)),
  });

  declare(api, {
    method: 'delete',
    path: '/connectors/:id',
    tag,
    summary: 'Delete a social connector (users keep their identities)',
    params: byId,
    status: 204,
    async handler({ params }) {
      await library.deleteSocial(params.id);
    },
  });

  const ssoTag = 'SSO connectors';

  declare(api, {
    method: 'get',
    path: '/sso-connector-providers',
    tag: ssoTag,
    summary: 'List the enterprise SSO providers that can be created',
    query: z.object({}).strict(),
    response: z.array(ssoProvider),
    handler: async () => [
      {
        providerName: 'OIDC' as const,
        providerType: 'oidc' as const,
        name: { en: 'OIDC' },
        description: { en: 'Any OpenID Connect identity provider of an organization.' },
        logo: null,
        logoDark: null,
      },
    ],
  });

  declare(api, {
    method: 'get',
    path: '/sso-connectors',
    tag: ssoTag,
    summary: 'List enterprise SSO connectors',
    query: optionalPagination,
    pagination: 'optional',
    response: z.array(ssoConnectorResponse),
    handler: async ({ page, paged }) => paged(await library.listSso(page)).map(presentSsoConnector),
  });

  declare(api, {
    method: 'post',
    path: '/sso-connectors',
    tag: ssoTag,
    summary: "Create an enterprise SSO connector (its issuer's discovery document is fetched when a config is given)",
    body: createSsoConnectorBody,
    status: 201,
    response: ssoConnectorResponse,
    async handler({ body }) {
      if (body.providerName !== 'OIDC') {
        throw errors.unprocessable(
          'connector.not_found',
          `no SSO provider ${body.providerName.slice(0, 64)}; see GET /api/sso-connector-providers`,
        );
      }
      return presentSsoConnector(await library.createSso({ ...body, providerName: 'OIDC' }));
    },
  });

  declare(api, {
    method: 'get',
    path: '/sso-connectors/:id',
    tag: ssoTag,
    summary: 'Get an enterprise SSO connector',
    params: byId,
    response: ssoConnectorResponse,
    handler: async ({ params }) => presentSsoConnector(await library.mustFindSso(params.id)),
  });

  declare(api, {
    method: 'patch',
    path: '/sso-connectors/:id',
    tag: ssoTag,
    summary: 'Update an enterprise SSO connector (a body naming nothing answers it unchanged, as Logto does)',
    params: byId,
    body: updateSsoConnectorBody,
    response: ssoConnectorResponse,
    handler: async ({ params, body }) => presentSsoConnector(await library.updateSso(params.id, body)),
  });

  declare(api, {
    method: 'delete',
    path: '/sso-connectors/:id',
    tag: ssoTag,
    summary: 'Delete an enterprise SSO connector and its just-in-time links to organizations',
    params: byId,
    status: 204,
    async handler({ params }) {
      await library.deleteSso(params.id);
    },
  });
}
