import { z } from 'zod';
import { declare, idParam, pagination, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { MANAGEMENT_SCOPES, type ManagementPrincipal } from '../../lib/management/auth.ts';
import { AUDIT_RECORD_TYPES, IMPERSONATION_STATUSES } from '../../lib/impersonation/record.ts';
import { createResourceServerAuth } from '../../lib/oidc/resource-server-auth.ts';

const tag = 'Impersonation';
/** Serialised size cap of a subject token's context. */
export const MAX_CONTEXT_BYTES = 16 * 1024;
/** Longest `reason`: a short sentence the impersonated user reads. */
export const MAX_REASON_LENGTH = 500;

const createSubjectTokenBody = z
  .object({
    userId: z.string().min(1).max(128),
    reason: z
      .string()
      .max(MAX_REASON_LENGTH)
      .optional()
      .describe('Why the user is impersonated: shown to them (GET /api/my-account/impersonations, the optional email)'),
    context: z
      .record(z.string(), z.unknown())
      .optional()
      .refine(
        (value) => value === undefined || Buffer.byteLength(JSON.stringify(value)) <= MAX_CONTEXT_BYTES,
        `context must serialise to at most ${MAX_CONTEXT_BYTES} bytes`,
      ),
  })
  .strict();

const impersonationRecord = z.object({
  id: z.string(),
  type: z.enum(AUDIT_RECORD_TYPES),
  subjectTokenRef: z
    .string()
    .nullable()
    .describe("Shared by a token's creation and its exchanges; null when a failed exchange named no subject token"),
  userId: z
    .string()
    .nullable()
    .describe('Null for a failed exchange of a token that names no live user (unknown, expired or spent)'),
  createdBy: z.string().nullable(),
  applicationId: z.string().nullable(),
  actorUserId: z.string().nullable(),
  resource: z.string().nullable(),
  scope: z.string().nullable().describe('Granted scope of an exchange; requested scope of a failed one'),
  error: z.string().nullable().describe('TokenExchange.Failed: the OAuth error the request was answered with'),
  errorDescription: z.string().nullable().describe('TokenExchange.Failed: why it was refused'),
  createdAt: z.number(),
});

export const impersonationSchema = z.object({
  id: z.string(),
  userId: z.string(),
  applicationId: z.string(),
  actorUserId: z.string().nullable(),
  subjectTokenRef: z.string().describe("The subject token's reference in the impersonation log"),
  reason: z.string().nullable(),
  createdBy: z.string().describe('The management client or console admin that created the subject token'),
  resource: z
    .string()
    .nullable()
    .describe("The token's audience: a resource indicator, an organization URN, or null for a userinfo token"),
  scope: z.string(),
  issuedAt: z.number(),
  expiresAt: z.number(),
  revokedAt: z.number().nullable(),
  status: z.enum(IMPERSONATION_STATUSES),
});

const byId = z.object({ id: idParam });
const byUser = z.object({ userId: idParam });

export function impersonationRoutes(
  api: ApiRouterDeps,
  core: Pick<ServiceCore, 'authorization' | 'impersonation' | 'provider' | 'rateLimits' | 'resources'>,
): void {
  const { impersonation, rateLimits } = core;

  declare(api, {
    method: 'post',
    path: '/subject-tokens',
    tag,
    scope: MANAGEMENT_SCOPES.createSubjectTokens,
    summary: 'Create a one-time subject token to impersonate a user (RFC 8693 token exchange)',
    body: createSubjectTokenBody,
    status: 201,
    // Stores the token, then its audit record: one document, and no events.
    transaction: false,
    response: z.object({ subjectToken: z.string(), expiresIn: z.number() }),
    async handler({ body, koa }) {
      const principal = koa.state.principal as ManagementPrincipal;
      await rateLimits.consumeSubjectToken(principal.clientId);
      return impersonation.issueSubjectToken({
        userId: body.userId,
        context: body.context ?? {},
        reason: body.reason,
        createdBy: principal.subject ?? principal.clientId,
      });
    },
  });

  declare(api, {
    method: 'get',
    path: '/impersonation-logs',
    tag,
    summary: 'Audit trail of subject-token creations, exchanges and refused exchanges',
    query: pagination.extend({
      userId: z.string().max(128).optional(),
      applicationId: z.string().max(128).optional(),
      subjectTokenRef: z.string().max(64).optional(),
    }),
    response: z.array(impersonationRecord),
    async handler({ query, page, paged }) {
      return paged(
        await impersonation.listAudit(page, {
          userId: query.userId,
          applicationId: query.applicationId,
          subjectTokenRef: query.subjectTokenRef,
        }),
      );
    },
  });

  declare(api, {
    method: 'get',
    path: '/impersonations',
    tag,
    summary: 'Impersonations, newest first: one per successful exchange, with its status',
    query: pagination.extend({
      userId: z.string().max(128).optional(),
      applicationId: z.string().max(128).optional(),
      actorId: z.string().max(128).optional().describe('The acting user (`actorUserId`)'),
      status: z
        .enum([...IMPERSONATION_STATUSES, 'ended'])
        .optional()
        .describe('`ended`: revoked or expired'),
    }),
    response: z.array(impersonationSchema),
    async handler({ query, page, paged }) {
      return paged(
        await impersonation.list(page, {
          userId: query.userId,
          applicationId: query.applicationId,
          actorId: query.actorId,
          status: query.status,
        }),
      );
    },
  });

  declare(api, {
    method: 'get',
    path: '/impersonations/:id',
    tag,
    summary: 'One impersonation',
    params: byId,
    response: impersonationSchema,
    handler: ({ params }) => impersonation.get(params.id),
  });

  declare(api, {
    method: 'post',
    path: '/impersonations/:id/revoke',
    tag,
    params: byId,
    response: impersonationSchema,
    summary: 'Revoke an impersonation: its token is no longer honoured anywhere; an ended one is answered as it is',
    async handler({ params, koa }) {
      const principal = koa.state.principal as ManagementPrincipal;
      return impersonation.revoke(params.id, principal.subject ?? principal.clientId);
    },
  });

  declare(api, {
    method: 'post',
    path: '/users/:userId/impersonations/revoke',
    tag,
    params: byUser,
    response: z.array(impersonationSchema),
    summary:
      'Revoke every active impersonation of a user and void their subject tokens not yet exchanged; answers those revoked',
    async handler({ params, koa }) {
      const principal = koa.state.principal as ManagementPrincipal;
      return impersonation.revokeUser(params.userId, principal.subject ?? principal.clientId);
    },
  });

  const authenticateResourceServer = createResourceServerAuth({
    provider: core.provider,
    resources: { list: (page) => core.resources.list(page, undefined, false) },
    authorization: core.authorization,
  });
  declare(api, {
    method: 'get',
    path: '/impersonation-revocations',
    tag,
    scope: null,
    ownAuthentication: 'resourceServer',
    summary:
      'For resource servers (HTTP Basic client authentication, as at introspection): revoked impersonations of ' +
      'tokens for the APIs the client serves, after a cursor, oldest first',
    query: z
      .object({
        after: z.coerce
          .number()
          .int()
          .min(0)
          .default(0)
          .describe('The `next` of the previous answer; 0 to read from the start'),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
      })
      .strict(),
    response: z.object({
      revocations: z.array(
        z.object({
          impersonationId: z.string(),
          userId: z.string(),
          resource: z.string().nullable(),
          revokedAt: z.number(),
          expiresAt: z.number().describe('After this the token has expired anyway: forget the entry'),
          cursor: z.number(),
        }),
      ),
      next: z.number().describe('Pass as `after` to read what follows'),
    }),
    async handler({ query, koa }) {
      const server = await authenticateResourceServer(koa);
      const { items, next } = await impersonation.revocationsAfter(query.after, server.audiences, query.limit);
      return { revocations: items, next };
    },
  });
}
