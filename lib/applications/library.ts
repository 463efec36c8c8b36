import { assertAllFound, errors } from '../errors.ts';
import { digest, newId, newSecret } from '../ids.ts';
import type { Application, ApplicationFilter, CustomClientMetadata } from './repository.ts';
import type { Page, PageResult, SearchInput } from '../data/entity.ts';
import type { Role } from '../roles/repository.ts';
import { isConfidential, type ApplicationType } from './types.ts';
import type { ApplicationsRepository } from './repository.ts';
import type { OidcRevocation } from '../oidc/revocation.ts';
import type { OrganizationsRepository } from '../organizations/repository.ts';
import type { RolesRepository } from '../roles/repository.ts';
import { SIGN_IN_SETTINGS } from './clients.ts';

export interface NewApplication {
  name: string;
  type: ApplicationType;
  description?: string | null;
  /** `logoUri: null` removes the logo. */
  oidcClientMetadata?: Partial<Omit<Application['oidcClientMetadata'], 'logoUri'>> & { logoUri?: string | null };
  customClientMetadata?: CustomClientMetadata;
  isThirdParty?: boolean;
}

function assertThirdPartyRules(app: Pick<Application, 'type' | 'isThirdParty' | 'customClientMetadata'>): void {
  if (app.isThirdParty && app.type === 'MachineToMachine') {
    throw errors.invalid(
      'application.invalid_third_party_application_type',
      'a third-party application signs users in: its type is Traditional, SPA or Native',
    );
  }
  if (app.isThirdParty && app.customClientMetadata.allowTokenExchange) {
    throw errors.unprocessable(
      'application.third_party_token_exchange',
      'third-party applications can never enable token exchange',
    );
  }
}

/** A setting that would change nothing for this type of application is refused rather than stored. */
function assertSettingsApply(type: ApplicationType, metadata: CustomClientMetadata | undefined): void {
  if (!metadata) return;
  const inert = type === 'MachineToMachine' ? SIGN_IN_SETTINGS.filter((key) => metadata[key] !== undefined) : [];
  if (inert.length) {
    throw errors.unprocessable(
      'application.setting_not_applicable',
      `MachineToMachine applications sign no user in and receive no ID or refresh token, so ${inert.join(', ')} would change nothing`,
      { fields: inert },
    );
  }
  if (!isConfidential(type) && metadata.rotateRefreshToken === false) {
    throw errors.unprocessable(
      'application.refresh_token_rotation_required',
      `${type} applications are public clients, whose refresh tokens must be rotated on every use: rotateRefreshToken cannot be false`,
    );
  }
}

/**
 * Application rules that sit above storage: secrets, the third-party rule, settings that fit the type,
 * M2M-only role assignment.
 */
export function createApplicationsLibrary(deps: {
  applications: ApplicationsRepository;
  roles: RolesRepository;
  organizations: OrganizationsRepository;
  oidcRevocation: OidcRevocation;
}) {
  const { applications, roles } = deps;

  async function mustFind(id: string): Promise<Application> {
    const app = await applications.findById(id);
    if (!app) throw errors.notFound('application', id);
    return app;
  }

  /** The application, which must be MachineToMachine to hold roles (422 `application.invalid_type`). */
  async function mustFindRoleHolder(appId: string): Promise<Application> {
    const app = await mustFind(appId);
    if (app.type !== 'MachineToMachine') {
      throw errors.unprocessable('application.invalid_type', 'only MachineToMachine applications can hold roles');
    }
    return app;
  }

  /**
   * Only M2M applications hold roles, and only M2M roles; with `adding`, a role the application already holds is
   * 422 `application.role_exists`, as Logto answers `POST …/roles`.
   */
  async function assertRolesAssignable(appId: string, roleIds: string[], adding = false): Promise<void> {
    await mustFindRoleHolder(appId);
    const found = await roles.findByIds(roleIds);
    assertAllFound('role', roleIds, found);
    if (adding) {
      const held = new Set(await roles.roleIdsOfApplication(appId));
      const already = roleIds.find((roleId) => held.has(roleId));
      if (already)
        throw errors.unprocessable('application.role_exists', `the application already holds role ${already}`, {
          roleId: already,
        });
    }
    if (found.some((role) => role.type !== 'MachineToMachine')) {
      throw errors.unprocessable(
        'application.invalid_role_type',
        'only MachineToMachine roles can be assigned to applications',
      );
    }
  }

  return {
    mustFind,
    async create(input: NewApplication): Promise<Application & { secret?: string }> {
      const app: Application = {
        id: newId(),
        name: input.name,
        description: input.description ?? null,
        type: input.type,
        oidcClientMetadata: {
          redirectUris: input.oidcClientMetadata?.redirectUris ?? [],
          postLogoutRedirectUris: input.oidcClientMetadata?.postLogoutRedirectUris ?? [],
          ...(input.oidcClientMetadata?.logoUri && { logoUri: input.oidcClientMetadata.logoUri }),
        },
        customClientMetadata: { allowTokenExchange: false, ...input.customClientMetadata },
        isThirdParty: input.isThirdParty ?? false,
        createdAt: Date.now(),
      };
      assertThirdPartyRules(app);
      assertSettingsApply(app.type, input.customClientMetadata);
      const secret = isConfidential(app.type) ? newSecret() : undefined;
      await applications.insert(app, { secretDigest: secret ? digest(secret) : null });
      return secret ? { ...app, secret } : app;
    },
    async update(id: string, changes: Omit<Partial<NewApplication>, 'type'>): Promise<Application> {
      const current = await mustFind(id);
      assertSettingsApply(current.type, changes.customClientMetadata);
      const next: Partial<Application> = {};
      if (changes.name !== undefined) next.name = changes.name;
      if (changes.description !== undefined) next.description = changes.description ?? null;
      if (changes.isThirdParty !== undefined) next.isThirdParty = changes.isThirdParty;
      if (changes.oidcClientMetadata) {
        const { logoUri, ...uris } = changes.oidcClientMetadata;
        const { logoUri: currentLogo, ...currentUris } = current.oidcClientMetadata;
        const logo = logoUri === undefined ? currentLogo : (logoUri ?? undefined);
        next.oidcClientMetadata = { ...currentUris, ...uris, ...(logo && { logoUri: logo }) };
      }
      // Replaced, not merged, and stored as given, as Logto does: a setting the body leaves out acts as its default.
      if (changes.customClientMetadata) next.customClientMetadata = { ...changes.customClientMetadata };
      assertThirdPartyRules({ ...current, ...next });
      return (await applications.update(id, next)) ?? (await mustFind(id));
    },
    async rotateSecret(id: string): Promise<Application & { secret: string }> {
      const app = await mustFind(id);
      if (!isConfidential(app.type)) {
        throw errors.unprocessable(
          'application.no_secret',
          `${app.type} applications are public clients and have no secret`,
        );
      }
      const secret = newSecret();
      await applications.setSecretDigest(id, digest(secret));
      return { ...app, secret };
    },
    async delete(id: string): Promise<Application> {
      if (await applications.isBuiltIn(id)) {
        throw errors.unprocessable(
          'application.protected',
          'built-in applications (the bootstrap admin application, the console) cannot be deleted',
        );
      }
      if (!(await applications.findById(id))) throw errors.notFound('application', id);
      // Nothing the application held may outlive it: roles, organization memberships, grants and tokens.
      // Children first: outside a transaction, a failure midway leaves the entity, which a retry deletes, never orphans.
      await roles.removeAllOfApplication(id);
      await deps.organizations.applications.removeWhere({ applicationId: id });
      await deps.organizations.applicationRoles.removeWhere({ applicationId: id });
      await deps.oidcRevocation.revokeClient(id);
      const app = await applications.delete(id);
      if (!app) throw errors.notFound('application', id);
      return app;
    },
    mustFindRoleHolder,
    /** The application, or undefined (the sign-in pages and the token paths read it; a miss is theirs to answer). */
    findById: (id: string) => applications.findById(id),
    /** A page of applications; `excludeRoleId` / `excludeOrganizationId` leave out those holding the role or in the organization. */
    async list(
      page: Page,
      filter: Omit<ApplicationFilter, 'excludeIds'> & { excludeRoleId?: string; excludeOrganizationId?: string },
    ): Promise<PageResult<Application>> {
      const { excludeRoleId, excludeOrganizationId, ...rest } = filter;
      if (excludeRoleId && excludeOrganizationId) {
        throw errors.invalidInput('excludeRoleId and excludeOrganizationId cannot be used together');
      }
      const excludeIds = excludeRoleId
        ? await roles.applicationIdsOfRole(excludeRoleId)
        : excludeOrganizationId
          ? await deps.organizations.applications.targetsOf({ organizationId: excludeOrganizationId })
          : undefined;
      return applications.list(page, { ...rest, excludeIds });
    },
    /** The roles an M2M application holds. */
    async rolesOf(id: string, page: Page, search: SearchInput): Promise<PageResult<Role>> {
      await mustFindRoleHolder(id);
      return roles.list(page, { search, ids: await roles.roleIdsOfApplication(id) });
    },
    /** Adds M2M roles; a role already held is 422 `application.role_exists`. Answers the roles added. */
    async assignRoles(id: string, roleIds: string[]): Promise<string[]> {
      await assertRolesAssignable(id, roleIds, true);
      return roles.assignToApplication(id, roleIds);
    },
    async replaceRoles(id: string, roleIds: string[]): Promise<void> {
      await assertRolesAssignable(id, roleIds);
      await roles.removeAllOfApplication(id);
      await roles.assignToApplication(id, roleIds);
    },
    async removeRole(id: string, roleId: string): Promise<void> {
      await mustFind(id);
      if (!(await roles.removeFromApplication(id, roleId))) throw errors.notLinked('role assignment', roleId);
    },
  };
}

export type ApplicationsLibrary = ReturnType<typeof createApplicationsLibrary>;
