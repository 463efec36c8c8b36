import { errors } from '../errors.ts';
import { remembered } from '../data/remembered.ts';
import type { DocumentStore } from '../ports/documents.ts';
import { CONSOLE_ADMIN_ROLE_ID, MANAGEMENT_RESOURCE_ID } from '../bootstrap.ts';
import type { EventBus } from '../events/bus.ts';
import type { Page } from '../data/entity.ts';
import { OIDC_SCOPES } from '../oidc/claims.ts';
import type { ApplicationsRepository } from '../applications/repository.ts';
import type { MfaRepository } from '../mfa/repository.ts';
import type { OrganizationsRepository } from '../organizations/repository.ts';
import type { ResourcesRepository } from '../resources/repository.ts';
import type { RolesRepository } from '../roles/repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { Authorization } from '../roles/authorization.ts';
import { organizationUrn } from '../organizations/urn.ts';
import type { Resource } from '../resources/repository.ts';
import type { User } from '../users/repository.ts';
import { organizationTokenRefusal } from '../organizations/token-access.ts';
import type { Messaging } from '../messaging/index.ts';
import type { ImpersonationSettings } from '../sign-in-experience/library.ts';
import type { ImpersonationAudit } from './audit.ts';
import type { ImpersonationFilter, Impersonations } from './impersonations.ts';
import type { Impersonation as ImpersonationRecord } from './record.ts';
import type { PeekedSubjectToken, SubjectTokenRecord, SubjectTokens } from './subject-tokens.ts';

/** OIDC scopes an exchanged token may carry: never `offline_access`, since no refresh token is issued. */
const EXCHANGEABLE_OIDC_SCOPES: ReadonlySet<string> = new Set(
  OIDC_SCOPES.filter((scope) => scope !== 'offline_access'),
);

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

/** Who may be impersonated and for how long: fixed at start-up. What an admin changes at runtime is in `settings`. */
export interface ImpersonationPolicy {
  /** The cap on an impersonation token's lifetime, whatever its resource's TTL. */
  maxTokenTtlSeconds: number;
  /** Roles, by name, whose holders can never be impersonated (beyond the console-admin role and management roles). */
  protectedRoleNames: readonly string[];
}

/** What the exchange established when it completes. */
export interface CompletedExchange {
  impersonationId: string;
  applicationId: string;
  actorUserId: string | null;
  scope: string;
  /** The grant of a userinfo token, which revocation ends. */
  grantId: string | null;
  issuedAt: number;
  expiresAt: number;
}

/** One impersonation as the impersonated user sees it (`GET /api/my-account/impersonations`). */
export interface ImpersonationOfMine {
  id: string;
  issuedAt: number;
  expiresAt: number;
  revokedAt: number | null;
  status: ImpersonationRecord['status'];
  reason: string | null;
  application: { id: string; name: string | null };
  /** Who acted, when the exchange named an actor; null when the application acted alone. */
  actor: { id: string; name: string | null; username: string | null } | null;
}

const PROTECTED = 'the user holds a protected role and cannot be impersonated';

/** Client-chosen text kept in the audit is bounded, so one request cannot write an arbitrarily large record. */
const MAX_AUDITED_TEXT = 1024;
const bounded = (text: string | undefined): string | null =>
  text === undefined ? null : text.slice(0, MAX_AUDITED_TEXT);

/**
 * Impersonation rules: who can be impersonated, what an exchanged token may reach (never the management API),
 * which scopes it carries, and the audit trail of creations, exchanges and refused exchanges.
 */
export function createImpersonation(deps: {
  store: DocumentStore;
  repositories: {
    users: UsersRepository;
    resources: ResourcesRepository;
    organizations: OrganizationsRepository;
    mfaVerifications: MfaRepository;
    roles: RolesRepository;
    applications: ApplicationsRepository;
  };
  authorization: Authorization;
  subjectTokens: SubjectTokens;
  audit: ImpersonationAudit;
  impersonations: Impersonations;
  bus: EventBus;
  policy: ImpersonationPolicy;
  /** The sign-in experience's impersonation settings, read at each subject token and exchange. */
  settings: () => Promise<ImpersonationSettings>;
  messaging: Pick<Messaging, 'sendImpersonationNotice'>;
}) {
  const { repositories, subjectTokens, audit, impersonations, bus, policy } = deps;
  const protectedNames: ReadonlySet<string> = new Set(policy.protectedRoleNames);

  /**
   * Whether the user holds a role that can never be impersonated: the console-admin role, any role granting a
   * management API scope, or a role named in the policy. Asked at every subject token and every exchange: remembered
   * until a role assignment, a role's scopes, a scope or (with protected names) a role changes.
   */
  const isProtected = remembered(
    deps.store,
    ['users_roles', 'roles_scopes', 'scopes', ...(protectedNames.size > 0 ? ['roles'] : [])],
    async (userId: string): Promise<boolean> => {
      const roleIds = await repositories.roles.roleIdsOfUser(userId);
      if (roleIds.length === 0) return false;
      if (roleIds.includes(CONSOLE_ADMIN_ROLE_ID)) return true;
      if ((await deps.authorization.scopesOfRoles(roleIds, MANAGEMENT_RESOURCE_ID)).length > 0) return true;
      if (protectedNames.size === 0) return false;
      return (await repositories.roles.findByIds(roleIds)).some((role) => protectedNames.has(role.name));
    },
  );

  async function announceRevoked(revoked: ImpersonationRecord[], revokedBy: string): Promise<void> {
    for (const record of revoked) {
      await bus.emit(
        'Impersonation.Revoked',
        {
          impersonationId: record.id,
          userId: record.userId,
          applicationId: record.applicationId,
          actorUserId: record.actorUserId,
          resource: record.resource,
          revokedBy,
          revokedAt: new Date(record.revokedAt ?? Date.now()).toISOString(),
          expiresAt: new Date(record.expiresAt).toISOString(),
        },
        { applicationId: record.applicationId },
      );
    }
  }
  // Read for every subject token and every exchange, remembered until a user changes (a suspension, a deletion).
  const userOf = remembered(deps.store, ['users'], (id: string) => repositories.users.findById(id));
  // Read at every exchange, remembered until the sign-in experience changes.
  const settingsOf = remembered(deps.store, ['sign_in_experiences'], () => deps.settings());

  /** The optional email to the impersonated user, composed and sent in the background (a failure never fails the exchange). */
  async function notifyUser(record: ImpersonationRecord, user: User): Promise<void> {
    if (!user.primaryEmail || !(await settingsOf()).notifyByEmail) return;
    deps.messaging.sendImpersonationNotice(user.primaryEmail, async () => {
      const application = await repositories.applications.findById(record.applicationId);
      const actor = record.actorUserId ? await repositories.users.findById(record.actorUserId) : null;
      return {
        applicationName: application?.name ?? record.applicationId,
        actorName: actor ? actor.name || actor.username || actor.id : null,
        reason: record.reason,
        issuedAt: record.issuedAt,
        expiresAt: record.expiresAt,
      };
    });
  }

  return {
    subjectTokenTtlSeconds: subjectTokens.ttlSeconds,
    listAudit: audit.list,

    maxTokenTtlSeconds: policy.maxTokenTtlSeconds,

    async issueSubjectToken(input: {
      userId: string;
      context: Record<string, unknown>;
      reason?: string | undefined;
      createdBy: string;
    }) {
      const reason = input.reason?.trim() || null;
      if (!reason && (await settingsOf()).requireReason) {
        throw errors.invalidInput('invalid body: reason: a reason is required to impersonate a user', {
          issues: [{ path: 'body.reason', message: 'a reason is required to impersonate a user' }],
        });
      }
      const user = await userOf(input.userId);
      if (!user) throw errors.notFound('user', input.userId);
      if (user.isSuspended) throw errors.unprocessable('user.suspended', 'a suspended user cannot be impersonated');
      if (await isProtected(user.id)) {
        await audit.record({
          type: 'SubjectToken.Refused',
          subjectTokenRef: null,
          userId: user.id,
          createdBy: input.createdBy,
          applicationId: null,
          actorUserId: null,
          resource: null,
          scope: null,
          error: 'user.impersonation_protected',
          errorDescription: PROTECTED,
        });
        throw errors.unprocessable('user.impersonation_protected', PROTECTED);
      }
      const { token, record, stored } = subjectTokens.issue({
        userId: user.id,
        context: input.context,
        reason,
        createdBy: input.createdBy,
      });
      // The token and the audit of its creation are written together (one commit on the embedded store), and the token
      // is handed out once both are.
      await Promise.all([
        stored,
        audit.record({
          type: 'SubjectToken.Created',
          subjectTokenRef: record.ref,
          userId: user.id,
          createdBy: record.createdBy,
          applicationId: null,
          actorUserId: null,
          resource: null,
          scope: null,
        }),
      ]);
      return { subjectToken: token, expiresIn: subjectTokens.ttlSeconds };
    },

    /** Checks the subject token (without spending it), its user and the target, and works out the scopes. */
    async plan(
      subjectToken: string,
      resource: string | undefined,
      requested: readonly string[],
      organizationId?: string,
    ): Promise<ExchangePlan> {
      const peeked = await subjectTokens.peek(subjectToken);
      if (!peeked) throw new ExchangeRefused('invalid_request', 'subject_token is invalid, expired or already used');
      const { record } = peeked;
      const user = await userOf(record.userId);
      if (!user) throw new ExchangeRefused('invalid_request', "the subject token's user no longer exists");
      if (user.isSuspended) throw new ExchangeRefused('invalid_request', "the subject token's user is suspended");
      // Checked at every exchange too: the user may have gained a protected role since the token was created.
      if (await isProtected(user.id)) throw new ExchangeRefused('access_denied', PROTECTED);
      const { authorization } = deps;
      const refusal = organizationId
        ? await organizationTokenRefusal(repositories, organizationId, user.id)
        : undefined;
      if (refusal) throw new ExchangeRefused('access_denied', refusal);
      const inOrganization = organizationId ?? null;
      const narrowed = (allowed: string[]) => requested.filter((scope) => allowed.includes(scope));
      if (!resource && inOrganization) {
        const allowed = (await authorization.organizationScopesForUser(inOrganization, user.id)).map(
          (scope) => scope.name,
        );
        return {
          subjectToken: peeked,
          record,
          user,
          target: null,
          organizationId: inOrganization,
          allowed,
          granted: narrowed(allowed),
        };
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
      return {
        subjectToken: peeked,
        record,
        user,
        target,
        organizationId: inOrganization,
        allowed,
        granted: narrowed(allowed),
      };
    },

    /** Audits a refused exchange with the error it was answered with. The subject token stays as it was. */
    async recordFailure(failure: FailedExchange): Promise<void> {
      const token = failure.subjectToken;
      const record = failure.plan?.record ?? (token ? (await subjectTokens.peek(token))?.record : null);
      await audit.record({
        type: 'TokenExchange.Failed',
        subjectTokenRef: token ? subjectTokens.refOf(token) : null,
        userId: record?.userId ?? null,
        createdBy: record?.createdBy ?? null,
        applicationId: failure.applicationId,
        actorUserId: failure.actorUserId,
        resource: bounded(failure.resource),
        scope: bounded(failure.scope),
        error: failure.error,
        errorDescription: bounded(failure.errorDescription),
      });
    },

    /**
     * Spends the subject token, and records the impersonation with the audit of the exchange in one transaction written
     * with the spending (on the SQLite store, in the same commit).
     * `used`: another exchange spent the token first. `revoked`: the user's kill switch voided the token while this
     * exchange ran; the impersonation is recorded revoked, and the token must not be handed out.
     */
    async complete(plan: ExchangePlan, exchange: CompletedExchange): Promise<ImpersonationRecord | 'used' | 'revoked'> {
      const spent = await subjectTokens.spend(plan.subjectToken);
      if (!spent) return 'used';
      const resource = plan.target?.indicator ?? (plan.organizationId ? organizationUrn(plan.organizationId) : null);
      // The spending is decided already; the records are written right after it, and the exchange goes on once both are
      // durable. On the SQLite store they share one commit (the token's removal is in the commit the records join), so
      // the exchange waits for one sync, and a commit that fails puts the token back with the records undone.
      const [record] = await Promise.all([
        deps.store.transaction(async () => {
          await audit.record({
            type: 'TokenExchange.Succeeded',
            subjectTokenRef: plan.record.ref,
            userId: plan.user.id,
            createdBy: plan.record.createdBy,
            applicationId: exchange.applicationId,
            actorUserId: exchange.actorUserId,
            resource,
            scope: exchange.scope,
          });
          return impersonations.insert({
            id: exchange.impersonationId,
            userId: plan.user.id,
            applicationId: exchange.applicationId,
            actorUserId: exchange.actorUserId,
            subjectTokenRef: plan.record.ref,
            reason: plan.record.reason ?? null,
            createdBy: plan.record.createdBy,
            resource,
            scope: exchange.scope,
            issuedAt: exchange.issuedAt,
            expiresAt: exchange.expiresAt,
            grantId: exchange.grantId,
          });
        }),
        spent.durable,
      ]);
      // Read once the impersonation is stored: a kill switch that stored its time later finds the impersonation itself.
      if (await subjectTokens.wasRevoked(plan.record)) {
        await impersonations.revoke({ id: record.id });
        return 'revoked';
      }
      await bus.emit(
        'User.Impersonated',
        {
          impersonationId: record.id,
          userId: record.userId,
          applicationId: record.applicationId,
          actorUserId: record.actorUserId,
          reason: record.reason,
          resource: record.resource,
          scope: record.scope,
          expiresAt: new Date(record.expiresAt).toISOString(),
        },
        { applicationId: record.applicationId },
      );
      await notifyUser(record, plan.user);
      return record;
    },

    list: (page: Page, filter: ImpersonationFilter) => impersonations.list(page, filter),

    async get(id: string): Promise<ImpersonationRecord> {
      const record = await impersonations.findById(id);
      if (!record) throw errors.notFound('impersonation', id);
      return record;
    },

    /** Whether a token of this impersonation may still be honoured. */
    async isActive(id: string): Promise<boolean> {
      return (await impersonations.findById(id))?.status === 'active';
    },

    /** The kill switch for one impersonation: its token stops being honoured. Answers the record as it now is. */
    async revoke(id: string, revokedBy: string): Promise<ImpersonationRecord> {
      const revoked = await impersonations.revoke({ id });
      await announceRevoked(revoked, revokedBy);
      return revoked[0] ?? this.get(id);
    },

    /** The kill switch for a user: every active impersonation of theirs, and every subject token not yet exchanged. */
    async revokeUser(userId: string, revokedBy: string): Promise<ImpersonationRecord[]> {
      if (!(await userOf(userId))) throw errors.notFound('user', userId);
      await subjectTokens.revokeUnusedOf(userId);
      const revoked = await impersonations.revoke({ userId });
      await announceRevoked(revoked, revokedBy);
      return revoked;
    },

    revocationsAfter: impersonations.revocationsAfter,

    /** What the impersonated user is shown of their impersonations: never the subject token's context. */
    async listForUser(userId: string, page: Page): Promise<{ items: ImpersonationOfMine[]; total: number }> {
      const { items, total } = await impersonations.list(page, { userId });
      const shown = await Promise.all(
        items.map(async (record): Promise<ImpersonationOfMine> => {
          const application = await repositories.applications.findById(record.applicationId);
          const actor = record.actorUserId ? await repositories.users.findById(record.actorUserId) : null;
          return {
            id: record.id,
            issuedAt: record.issuedAt,
            expiresAt: record.expiresAt,
            revokedAt: record.revokedAt,
            status: record.status,
            reason: record.reason,
            application: { id: record.applicationId, name: application?.name ?? null },
            actor: record.actorUserId
              ? { id: record.actorUserId, name: actor?.name ?? null, username: actor?.username ?? null }
              : null,
          };
        }),
      );
      return { items: shown, total };
    },
  };
}

export type Impersonation = ReturnType<typeof createImpersonation>;
