import { errors } from '../errors.ts';
import { remembered } from '../data/remembered.ts';
import type { DocumentStore } from '../ports/documents.ts';
import { MANAGEMENT_RESOURCE_ID } from '../bootstrap.ts';
import { OIDC_SCOPES } from '../oidc/claims.ts';
import type { Repositories } from '../repositories.ts';
import type { Authorization } from '../roles/authorization.ts';
import { organizationUrn } from '../organizations/urn.ts';
import type { Resource } from '../resources/repository.ts';
import type { User } from '../users/repository.ts';
import { organizationTokenRefusal } from '../organizations/token-access.ts';
import type { ImpersonationAudit } from './audit.ts';
import type { PeekedSubjectToken, SubjectTokenRecord, SubjectTokens } from './subject-tokens.ts';

/** OIDC scopes an exchanged token may carry: never `offline_access`, since no refresh token is issued. */
const EXCHANGEABLE_OIDC_SCOPES: ReadonlySet<string> = new Set(OIDC_SCOPES.filter((scope) => scope !== 'offline_access'));

/** Why an exchange is refused; the grant turns each into its OAuth error. */
export class ExchangeRefused extends Error {
  readonly error: 'invalid_request' | 'invalid_target' | 'access_denied';
  constructor(error: 'invalid_request' | 'invalid_target' | 'access_denied', description: string) {
    super(description);
    this.name = 'ExchangeRefused';
    this.error = error;
  }
}

/** What a valid exchange request resolves to, before the token is signed and the subject token spent. */
export interface ExchangePlan {
  /** The subject token as checked, spent by `complete`. */
  subjectToken: PeekedSubjectToken;
  record: SubjectTokenRecord;
  user: User;
  /** The target API, or `null` for a token for the userinfo endpoint. */
  target: Resource | null;
  /** The organization the token is for (its audience without a target), or `null`. */
  organizationId: string | null;
  /** Every scope the user's roles grant on the target (the resource server's scope). */
  allowed: string[];
  /** The requested scopes that are granted. */
  granted: string[];
}

/** A refused exchange, as far as it got before it was refused. */
export interface FailedExchange {
  applicationId: string;
  /** The subject token presented, if any: its audit reference, and its user while it is still unspent. */
  subjectToken: string | undefined;
  /** The plan, when the subject token, its user and the target were valid. */
  plan: ExchangePlan | undefined;
  actorUserId: string | null;
  resource: string | undefined;
  /** The requested scope. */
  scope: string | undefined;
  /** The OAuth error and description the client was answered with. */
  error: string;
  errorDescription: string | undefined;
}

/** Client-chosen text kept in the audit is bounded, so one request cannot write an arbitrarily large record. */
const MAX_AUDITED_TEXT = 1024;
const bounded = (text: string | undefined): string | null => (text === undefined ? null : text.slice(0, MAX_AUDITED_TEXT));

/**
 * Impersonation rules: who can be impersonated, what an exchanged token may reach (never the management API),
 * which scopes it carries, and the audit trail of creations, exchanges and refused exchanges.
 */
export function createImpersonation(deps: {
  store: DocumentStore;
  repositories: Pick<Repositories, 'users' | 'resources' | 'organizations' | 'mfaVerifications'>;
  authorization: Authorization;
  subjectTokens: SubjectTokens;
  audit: ImpersonationAudit;
}) {
  const { repositories, subjectTokens, audit } = deps;
  // Read for every subject token and every exchange, remembered until a user changes (a suspension, a deletion).
  const userOf = remembered(deps.store, ['users'], (id: string) => repositories.users.findById(id));

  return {
    subjectTokenTtlSeconds: subjectTokens.ttlSeconds,
    listAudit: audit.list,

    async issueSubjectToken(input: { userId: string; context: Record<string, unknown>; createdBy: string }) {
      const user = await userOf(input.userId);
      if (!user) throw errors.notFound('user', input.userId);
      if (user.isSuspended) throw errors.unprocessable('user.suspended', 'a suspended user cannot be impersonated');
      const { token, record } = await subjectTokens.issue({ userId: user.id, context: input.context, createdBy: input.createdBy });
      await audit.record({
        type: 'SubjectToken.Created', subjectTokenRef: record.ref, userId: user.id, createdBy: record.createdBy,
        applicationId: null, actorUserId: null, resource: null, scope: null,
      });
      return { subjectToken: token, expiresIn: subjectTokens.ttlSeconds };
    },

    /** Checks the subject token (without spending it), its user and the target, and works out the scopes. */
    async plan(
      subjectToken: string, resource: string | undefined, requested: readonly string[], organizationId?: string,
    ): Promise<ExchangePlan> {
      const peeked = await subjectTokens.peek(subjectToken);
      if (!peeked) throw new ExchangeRefused('invalid_request', 'subject_token is invalid, expired or already used');
      const { record } = peeked;
      const user = await userOf(record.userId);
      if (!user) throw new ExchangeRefused('invalid_request', "the subject token's user no longer exists");
      if (user.isSuspended) throw new ExchangeRefused('invalid_request', "the subject token's user is suspended");
      const { authorization } = deps;
      const refusal = organizationId ? await organizationTokenRefusal(repositories, organizationId, user.id) : undefined;
      if (refusal) throw new ExchangeRefused('access_denied', refusal);
      const inOrganization = organizationId ?? null;
      const narrowed = (allowed: string[]) => requested.filter((scope) => allowed.includes(scope));
      if (!resource && inOrganization) {
        const allowed = (await authorization.organizationScopesForUser(inOrganization, user.id)).map((scope) => scope.name);
        return { subjectToken: peeked, record, user, target: null, organizationId: inOrganization, allowed, granted: narrowed(allowed) };
      }
      if (!resource) {
        const granted = requested.filter((scope) => EXCHANGEABLE_OIDC_SCOPES.has(scope));
        return { subjectToken: peeked, record, user, target: null, organizationId: null, allowed: granted, granted };
      }
      const target = await repositories.resources.findByIndicator(resource);
      if (!target) throw new ExchangeRefused('invalid_target', `resource indicator ${resource} is not registered`);
      // Impersonating a console admin must never yield a management token, whatever roles the user holds.
      if (target.id === MANAGEMENT_RESOURCE_ID) {
        throw new ExchangeRefused('invalid_target', 'the management API cannot be a token-exchange target');
      }
      const allowed = inOrganization
        ? await authorization.scopesForOrganizationUser(inOrganization, user.id, target.id)
        : await authorization.scopesForUser(user.id, target.id);
      return { subjectToken: peeked, record, user, target, organizationId: inOrganization, allowed, granted: narrowed(allowed) };
    },

    /** Audits a refused exchange with the error it was answered with. The subject token stays as it was. */
    async recordFailure(failure: FailedExchange): Promise<void> {
      const token = failure.subjectToken;
      const record = failure.plan?.record ?? (token ? (await subjectTokens.peek(token))?.record : null);
      await audit.record({
        type: 'TokenExchange.Failed', subjectTokenRef: token ? subjectTokens.refOf(token) : null,
        userId: record?.userId ?? null, createdBy: record?.createdBy ?? null, applicationId: failure.applicationId,
        actorUserId: failure.actorUserId, resource: bounded(failure.resource), scope: bounded(failure.scope),
        error: failure.error, errorDescription: bounded(failure.errorDescription),
      });
    },

    /** Spends the subject token and audits the exchange; false when another exchange spent it first. */
    async complete(plan: ExchangePlan, exchange: { applicationId: string; actorUserId: string | null; scope: string }): Promise<boolean> {
      if (!(await subjectTokens.spend(plan.subjectToken))) return false;
      await audit.record({
        type: 'TokenExchange.Succeeded', subjectTokenRef: plan.record.ref, userId: plan.user.id, createdBy: plan.record.createdBy,
        applicationId: exchange.applicationId, actorUserId: exchange.actorUserId,
        resource: plan.target?.indicator ?? (plan.organizationId ? organizationUrn(plan.organizationId) : null),
        scope: exchange.scope,
      });
      return true;
    },
  };
}

export type Impersonation = ReturnType<typeof createImpersonation>;
