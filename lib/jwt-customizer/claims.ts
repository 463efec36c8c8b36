import type { Logger } from 'pino';
import type { ScriptRunner, SandboxOutcome } from './sandbox.ts';
import { hasScript, type JwtCustomizerConfigs } from './config.ts';
import { isPlainObject } from '../plain-object.ts';
import type { Application } from '../applications/repository.ts';
import type { RoleSummary } from '../organizations/library.ts';
import type { Role } from '../roles/repository.ts';
import type { User } from '../users/repository.ts';
import { IMPERSONATION_CLAIM } from '../impersonation/record.ts';

/** Claims a customizer can never set or override. */
export const RESERVED_CLAIMS = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
  'scope',
  'client_id',
  'act',
  'cnf',
  IMPERSONATION_CLAIM,
]);
/**
 * Names no token can carry: oidc-provider refuses extra claims whose `constructor` is not `Object` (a 500
 * for every token request), and the other two would reach prototypes when the claims are merged.
 */
export const UNSAFE_CLAIMS = new Set(['constructor', '__proto__', 'prototype']);

export interface CustomizerApi {
  /** Refuses issuance: the token request fails with `access_denied` and this message. */
  denyAccess(message?: string): never;
}

/** The access token being issued, as a customizer sees it (`token`). */
export type CustomizerToken = {
  jti?: string | undefined;
  /** `AccessToken` or `ClientCredentials`. */
  kind?: string | undefined;
  /** The user's id; absent for a client-credentials token. */
  accountId?: string | undefined;
  clientId?: string | undefined;
  scope?: string | undefined;
  /** The grant that issued it, e.g. `urn:ietf:params:oauth:grant-type:token-exchange`. */
  gty?: string | undefined;
  aud?: string | string[] | undefined;
  grantId?: string | undefined;
};

/** What a customizer is told about the token's issuance (`context`). */
export type CustomizerContext = {
  /** How the token is issued; an exchanged token's grant also carries its subject token's `context`. */
  grant: { type: string; subjectTokenContext?: Record<string, unknown> | undefined };
  /** The application the token is issued to, or null. */
  application: Application | null;
  /** The user behind the token, with the roles and organizations they hold; absent for client credentials. */
  user?:
    | (User & {
        roles: Array<Pick<Role, 'id' | 'name' | 'description'>>;
        organizations: Array<{ id: string; name: string; organizationRoles: RoleSummary[] }>;
      })
    | undefined;
};

export interface CustomizerInput {
  token: CustomizerToken;
  context: CustomizerContext;
  environmentVariables: Record<string, string>;
  api: CustomizerApi;
}

/** The library-user form of the customizer, passed to `createIdentityService`. */
export type GetCustomJwtClaims = (input: CustomizerInput) => unknown;

export interface FunctionCustomizer {
  getCustomJwtClaims: GetCustomJwtClaims;
  environmentVariables?: Record<string, string>;
  blockIssuanceOnError?: boolean;
}

export type CustomizerResult =
  | { kind: 'claims'; claims: Record<string, unknown> }
  | { kind: 'denied'; message: string }
  | { kind: 'failed'; reason: string; blockIssuance: boolean };

class Denied extends Error {}

export function withoutReserved(claims: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(claims)) {
    if (!RESERVED_CLAIMS.has(name) && !UNSAFE_CLAIMS.has(name)) kept[name] = value;
  }
  return kept;
}

async function runFunction(
  customizer: FunctionCustomizer,
  token: CustomizerToken,
  context: CustomizerContext,
): Promise<SandboxOutcome> {
  const api: CustomizerApi = {
    denyAccess(message = 'access denied by the token customizer') {
      throw new Denied(message);
    },
  };
  try {
    const result = await customizer.getCustomJwtClaims({
      token,
      context,
      environmentVariables: customizer.environmentVariables ?? {},
      api,
    });
    if (result === undefined || result === null) return { kind: 'claims', claims: {} };
    if (!isPlainObject(result)) return { kind: 'error', code: 'invalid_result', message: 'must return an object' };
    return { kind: 'claims', claims: JSON.parse(JSON.stringify(result)) as Record<string, unknown> };
  } catch (error) {
    if (error instanceof Denied) return { kind: 'denied', message: error.message };
    return { kind: 'error', code: 'runtime', message: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Resolves custom claims for one access token: the library function when given, else the stored script
 * in the sandbox. Errors are logged (without the script's input, which may hold personal data) and
 * reported with the configured failure policy.
 *
 * A stored script never runs for tokens of `scriptExemptAudiences` (the management API's): a script that
 * fails closed or breaks tokens must not lock operators out of the API they would fix it with.
 */
export function createClaimsCustomizer(deps: {
  fn?: FunctionCustomizer;
  configs: JwtCustomizerConfigs;
  runner: () => ScriptRunner;
  logger: Logger;
  scriptExemptAudiences?: readonly string[];
}) {
  const exemptions = new Set(deps.scriptExemptAudiences);
  const exempt = (audience: unknown): boolean =>
    [audience].flat().some((one) => typeof one === 'string' && exemptions.has(one));

  return {
    /** False when no customizer applies to a token for this audience, so callers can skip building the context. */
    async appliesTo(audience: unknown): Promise<boolean> {
      if (deps.fn) return true;
      return !exempt(audience) && hasScript(await deps.configs.get());
    },
    async run(token: CustomizerToken, context: CustomizerContext): Promise<CustomizerResult> {
      let outcome: SandboxOutcome;
      let blockIssuance: boolean;
      if (deps.fn) {
        blockIssuance = deps.fn.blockIssuanceOnError ?? false;
        outcome = await runFunction(deps.fn, token, context);
      } else {
        const config = exempt(token.aud) ? null : await deps.configs.get();
        if (!hasScript(config)) return { kind: 'claims', claims: {} };
        blockIssuance = config.blockIssuanceOnError;
        outcome = await deps
          .runner()
          .run(config.script, { token, context, environmentVariables: config.environmentVariables });
      }
      if (outcome.kind === 'claims') {
        const unsafe = Object.keys(outcome.claims).filter((name) => UNSAFE_CLAIMS.has(name));
        if (unsafe.length)
          deps.logger.warn({ claims: unsafe }, 'custom JWT claims dropped: no token can carry these names');
        return { kind: 'claims', claims: withoutReserved(outcome.claims) };
      }
      if (outcome.kind === 'denied') return outcome;
      deps.logger.warn({ code: outcome.code, reason: outcome.message }, 'custom JWT claims failed');
      return { kind: 'failed', reason: `${outcome.code}: ${outcome.message}`, blockIssuance };
    },
  };
}

export type ClaimsCustomizer = ReturnType<typeof createClaimsCustomizer>;
