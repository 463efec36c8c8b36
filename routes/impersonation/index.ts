import { z } from 'zod';
import { declare, pagination, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { MANAGEMENT_SCOPES, type ManagementPrincipal } from '../../lib/management/auth.ts';
import { AUDIT_RECORD_TYPES } from '../../lib/impersonation/record.ts';

const tag = 'Impersonation';
/** Serialised size cap of a subject token's context. */
export const MAX_CONTEXT_BYTES = 16 * 1024;

const createSubjectTokenBody = z.object({
  userId: z.string().min(1).max(128),
  context: z.record(z.string(), z.unknown()).optional()
    .refine((value) => value === undefined || Buffer.byteLength(JSON.stringify(value)) <= MAX_CONTEXT_BYTES,
      `context must serialise to at most ${MAX_CONTEXT_BYTES} bytes`),
}).strict();

const impersonationRecord = z.object({
  id: z.string(),
  type: z.enum(AUDIT_RECORD_TYPES),
  subjectTokenRef: z.string().nullable().describe('Shared by a token\'s creation and its exchanges; null when a failed exchange named no subject token'),
  userId: z.string().nullable().describe('Null for a failed exchange of a token that names no live user (unknown, expired or spent)'),
  createdBy: z.string().nullable(),
  applicationId: z.string().nullable(),
  actorUserId: z.string().nullable(),
  resource: z.string().nullable(),
  scope: z.string().nullable().describe('Granted scope of an exchange; requested scope of a failed one'),
  error: z.string().nullable().describe('TokenExchange.Failed: the OAuth error the request was answered with'),
  errorDescription: z.string().nullable().describe('TokenExchange.Failed: why it was refused'),
  createdAt: z.number(),
});

export function impersonationRoutes(api: ApiRouterDeps, core: ServiceCore): void {
  const { impersonation, rateLimits } = core;

  declare(api, {
    method: 'post', path: '/subject-tokens', tag, scope: MANAGEMENT_SCOPES.createSubjectTokens,
    summary: 'Create a one-time subject token to impersonate a user (RFC 8693 token exchange)',
    body: createSubjectTokenBody, status: 201,
    // Stores the token, then its audit record: one document, and no events.
    transaction: false,
    response: z.object({ subjectToken: z.string(), expiresIn: z.number() }),
    async handler({ body, koa }) {
      const principal = koa.state.principal as ManagementPrincipal;
      await rateLimits.consumeSubjectToken(principal.clientId);
      return impersonation.issueSubjectToken({
        userId: body.userId, context: body.context ?? {}, createdBy: principal.subject ?? principal.clientId,
      });
    },
  });

  declare(api, {
    method: 'get', path: '/impersonation-logs', tag, summary: 'Audit trail of subject-token creations, exchanges and refused exchanges',
    query: pagination.extend({
      userId: z.string().max(128).optional(),
      applicationId: z.string().max(128).optional(),
      subjectTokenRef: z.string().max(64).optional(),
    }),
    response: z.array(impersonationRecord),
    async handler({ query, page, paged }) {
      return paged(await impersonation.listAudit(
        page,
        { userId: query.userId, applicationId: query.applicationId, subjectTokenRef: query.subjectTokenRef },
      ));
    },
  });
}
