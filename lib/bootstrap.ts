import type { Logger } from 'pino';
import { ConfigurationError } from './config.ts';
import { DuplicateKeyError } from './ports/documents.ts';
import type { ApplicationsRepository } from './applications/repository.ts';
import type { ResourcesRepository } from './resources/repository.ts';
import type { RolesRepository } from './roles/repository.ts';
import { MANAGEMENT_SCOPES } from './management/auth.ts';
import { digest, newSecret } from './ids.ts';

export const MANAGEMENT_RESOURCE_ID = 'management-api';
/**
 * Logto OSS's fixed management API indicator, which Logto's SDKs ask for when told no other: accepted as another name
 * of this service's management API (tokens for it carry this audience, and the management API takes them).
 */
export const LOGTO_MANAGEMENT_INDICATOR = 'https://default.logto.app/api';
export const MANAGEMENT_ROLE_ID = 'management-api-admin';
/** The one `User` role that may hold management scopes: console admins sign in and get them that way. */
export const CONSOLE_ADMIN_ROLE_ID = 'console-admin';
/** Roles the bootstrap defines: only their description can change through the API. */
export const BUILT_IN_ROLE_IDS: ReadonlySet<string> = new Set([MANAGEMENT_ROLE_ID, CONSOLE_ADMIN_ROLE_ID]);

const managementScopeId = (name: string) => `${MANAGEMENT_RESOURCE_ID}-${name.replace(/\W/g, '-')}`;

const SCOPE_DESCRIPTIONS: Record<string, string> = {
  [MANAGEMENT_SCOPES.all]: 'Everything the management API can do.',
  [MANAGEMENT_SCOPES.createSubjectTokens]: 'Only POST /api/subject-tokens (impersonation), nothing else.',
  [MANAGEMENT_SCOPES.readEvents]: 'Only GET /api/events (the event log), nothing else.',
};

async function ignoreDuplicate(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
  }
}

/**
 * Idempotent first-start setup: the management API resource with its scopes, an M2M role holding `all`,
 * the console-admin user role holding `all`, and the admin application. Configured admin credentials are the source
 * of truth on every start; generated ones are printed when they are created, which is once per store: a store that
 * keeps nothing past the process (`keptUntilExit`) gets new ones at every start, and says so. A later start on a store
 * that has them says they exist and how to replace them, never the secret (only its digest is stored).
 */
export async function bootstrap(options: {
  repositories: { applications: ApplicationsRepository; resources: ResourcesRepository; roles: RolesRepository };
  managementIndicator: string;
  adminClientId?: string;
  adminClientSecret?: string;
  /** The store forgets everything when the process exits (embedded in-memory documents). */
  keptUntilExit?: boolean;
  logger: Logger;
  print: (text: string) => void;
}): Promise<{ adminClientId: string }> {
  const { repositories } = options;
  const now = Date.now();
  // Upserted, not inserted once: after a BASE_URL change the stored indicator must follow, or no token
  // could ever name the management API again.
  try {
    await repositories.resources.upsertBuiltIn({
      id: MANAGEMENT_RESOURCE_ID,
      name: 'Management API',
      indicator: options.managementIndicator,
      isDefault: false,
      accessTokenTtl: 3600,
      createdAt: now,
    });
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    throw new ConfigurationError(
      `another API resource already has the indicator ${options.managementIndicator}, which the management API takes from BASE_URL: change that resource's indicator or BASE_URL`,
    );
  }
  for (const [name, description] of Object.entries(SCOPE_DESCRIPTIONS)) {
    await ignoreDuplicate(() =>
      repositories.resources.insertScope({
        id: managementScopeId(name),
        resourceId: MANAGEMENT_RESOURCE_ID,
        name,
        description,
        createdAt: now,
      }),
    );
  }
  await ignoreDuplicate(() =>
    repositories.roles.insert({
      id: MANAGEMENT_ROLE_ID,
      name: 'Management API admin',
      description: 'Full access to the management API.',
      type: 'MachineToMachine',
      isDefault: false,
      createdAt: now,
    }),
  );
  await repositories.roles.addScopes(MANAGEMENT_ROLE_ID, [managementScopeId(MANAGEMENT_SCOPES.all)]);
  await ignoreDuplicate(() =>
    repositories.roles.insert({
      id: CONSOLE_ADMIN_ROLE_ID,
      name: 'Console admin',
      description:
        'Users who administer the service: full access to the management API through sign-in, never through token exchange.',
      type: 'User',
      isDefault: false,
      createdAt: now,
    }),
  );
  if (await repositories.roles.findById(CONSOLE_ADMIN_ROLE_ID)) {
    await repositories.roles.addScopes(CONSOLE_ADMIN_ROLE_ID, [managementScopeId(MANAGEMENT_SCOPES.all)]);
  } else {
    // Another role already took the name; management scopes must not end up on an id no role has.
    options.logger.error(
      'the console-admin role could not be created: a role named "Console admin" exists; rename it and restart',
    );
  }

  const adminClientId = options.adminClientId ?? 'admin-console';
  const existing = await repositories.applications.findById(adminClientId);
  if (options.adminClientSecret) {
    if (existing) await repositories.applications.setSecretDigest(adminClientId, digest(options.adminClientSecret));
  }
  if (!existing) {
    const secret = options.adminClientSecret ?? newSecret();
    await ignoreDuplicate(() =>
      repositories.applications.insert(
        {
          id: adminClientId,
          name: 'Admin (bootstrap)',
          description: 'Created on first start with the management scope `all`.',
          type: 'MachineToMachine',
          oidcClientMetadata: { redirectUris: [], postLogoutRedirectUris: [] },
          customClientMetadata: {},
          isThirdParty: false,
          createdAt: now,
        },
        { secretDigest: digest(secret), builtIn: true },
      ),
    );
    if (!options.adminClientSecret) {
      const lifetime = options.keptUntilExit
        ? 'created now; embedded storage keeps them only until this process exits, so each start creates new ones: set ' +
          'ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET to keep the same'
        : 'created now and shown only this once: store them now';
      options.print(
        `Management API credentials (${lifetime}):\n  ADMIN_CLIENT_ID=${adminClientId}\n  ADMIN_CLIENT_SECRET=${secret}\n`,
      );
    }
    options.logger.info({ clientId: adminClientId }, 'bootstrap admin application created');
  } else if (!options.adminClientSecret) {
    options.print(
      `Management API credentials: the application ${adminClientId} exists; its secret was shown when it was created. To ` +
        `replace it: POST /api/applications/${adminClientId}/secret, or set ADMIN_CLIENT_SECRET (applied at every start).\n`,
    );
  }
  await repositories.roles.assignToApplication(adminClientId, [MANAGEMENT_ROLE_ID]);
  return { adminClientId };
}
