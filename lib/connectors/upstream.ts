import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { SignJWT } from 'jose';
import * as client from 'openid-client';
import { DomainError, errors } from '../errors.ts';
import {
  AUTH_REQUEST_PARAMETERS,
  OAUTH2_PROFILE_DEFAULTS,
  OIDC_PROFILE_DEFAULTS,
  snakeCase,
  type IdTokenVerification,
  type OAuth2Config,
  type OidcConfig,
  type ProfileMap,
  type SsoOidcConfig,
} from './configs.ts';
import { verifyIdToken } from './id-token.ts';
import type { Outbound, OutboundFetch } from './outbound.ts';
import { isPictureUrl } from '../users/picture.ts';

/** A connector ready to use: its parsed config and its decrypted client secret. */
export type UsableConnector =
  | { kind: 'oidc'; config: OidcConfig; clientSecret: string }
  | { kind: 'oauth2'; config: OAuth2Config; clientSecret: string }
  | { kind: 'sso'; config: SsoOidcConfig; clientSecret: string };

/** What the service remembers between sending the browser to the upstream and its callback. */
export interface PendingAuthorization {
  state: string;
  nonce?: string;
  codeVerifier: string;
  redirectUri: string;
}

/** Who the upstream says the user is, through the connector's profile map. */
export interface UpstreamProfile {
  id: string;
  email?: string;
  /** The upstream vouches for the email (a claim, or the enterprise connector's trustUnverifiedEmail). */
  emailVerified: boolean;
  phone?: string;
  name?: string;
  avatar?: string;
  /** The upstream's issuer, for OIDC connectors (enterprise identities are keyed by it). */
  issuer?: string;
  rawData: Record<string, unknown>;
}

const CONFIGURATION_TTL_MS = 5 * 60_000;
const MAX_CONFIGURATIONS = 100;
const sha256 = (text: string) => createHash('sha256').update(text).digest();
/** Constant-time comparison of the state the callback carries with the one this sign-in sent. */
const sameState = (a: string, b: string) => timingSafeEqual(sha256(a), sha256(b));

/**
 * The authorization-code flow against an upstream provider, with PKCE always: OIDC (and enterprise OIDC) through
 * openid-client, which verifies the ID token, its nonce and the state; plain OAuth 2.0 by hand, since such
 * providers answer in many shapes (no ID token, no issuer). Every request goes through the outbound policy,
 * those to endpoints a discovery document named under its issuer's rule; a discovery document naming an endpoint
 * its issuer may not send to is refused as a whole. Failures are Logto's connector codes, 4xx (502 for an upstream
 * that cannot be reached), never a 500.
 */
export function createUpstreams(outbound: Outbound) {
  const customFetchOf = (fetch: OutboundFetch) => (url: string, options: client.CustomFetchOptions) =>
    fetch(url, {
      method: options.method,
      headers: options.headers,
      body: options.body,
      signal: options.signal,
    });
  /** Discovered endpoints are reached under their issuer's rule; explicitly configured ones under the operator's. */
  const fetchOf = (issuer: string | undefined) => (issuer ? outbound.forIssuer(issuer) : outbound.fetch);

  /** 400 `connector.invalid_config` when the discovery document names an endpoint its issuer may not send requests to. */
  async function assertEndpointsAllowed(issuer: string, metadata: client.ServerMetadata): Promise<void> {
    for (const name of ['token_endpoint', 'userinfo_endpoint', 'jwks_uri'] as const) {
      const endpoint = metadata[name];
      if (typeof endpoint !== 'string') continue;
      const problem = await outbound.endpointProblem(issuer, endpoint);
      if (problem)
        throw errors.connector('connector.invalid_config', `the discovery document's ${name} is refused: ${problem}`);
    }
  }

  /**
   * Discovery documents and the keys fetched through a configuration are reused for a few minutes (per connector
   * config, per service instance), so a sign-in does not fetch them twice; a failure is never kept.
   */
  const cache = new Map<string, { until: number; configuration: Promise<client.Configuration> }>();
  function oidcConfiguration(
    connector: UsableConnector & { kind: 'oidc' | 'sso' },
    fresh = false,
  ): Promise<client.Configuration> {
    const key = createHash('sha256')
      .update(JSON.stringify([connector.kind, connector.config, connector.clientSecret]))
      .digest('base64url');
    const cached = cache.get(key);
    if (!fresh && cached && cached.until > Date.now()) return cached.configuration;
    const configuration = newConfiguration(connector);
    cache.delete(key);
    cache.set(key, { until: Date.now() + CONFIGURATION_TTL_MS, configuration });
    configuration.catch(() => {
      if (cache.get(key)?.configuration === configuration) cache.delete(key);
    });
    // Insertion order is age order: the oldest go beyond the bound.
    for (const old of cache.keys()) {
      if (cache.size <= MAX_CONFIGURATIONS) break;
      cache.delete(old);
    }
    return configuration;
  }

  async function newConfiguration(
    connector: UsableConnector & { kind: 'oidc' | 'sso' },
  ): Promise<client.Configuration> {
    const { config, clientSecret } = connector;
    const method = connector.kind === 'oidc' ? connector.config.tokenEndpointAuthMethod : 'client_secret_basic';
    const auth =
      method === 'client_secret_post' ? client.ClientSecretPost(clientSecret) : client.ClientSecretBasic(clientSecret);
    if (config.issuer) {
      const insecure = config.issuer.startsWith('http:');
      let discovered: client.Configuration;
      try {
        discovered = await client.discovery(new URL(config.issuer), config.clientId, undefined, auth, {
          [client.customFetch]: customFetchOf(fetchOf(config.issuer)),
          execute: insecure ? [client.allowInsecureRequests] : [],
        });
      } catch (error) {
        throw (
          ownFailure(error) ??
          errors.connector(
            'connector.invalid_config',
            `the discovery document of ${config.issuer} could not be used: ${describe(error)}`,
          )
        );
      }
      await assertEndpointsAllowed(config.issuer, discovered.serverMetadata());
      return discovered;
    }
    throw new Error(
      'a connector without an issuer is run by hand (explicitOidc), not through a discovered configuration',
    );
  }

  async function oauth2Endpoints(config: OAuth2Config, fresh = false) {
    if (!config.issuer) {
      return {
        authorization: config.authorizationEndpoint!,
        token: config.tokenEndpoint!,
        userInfo: config.userInfoEndpoint!,
      };
    }
    const discovered = await oidcConfiguration(
      {
        kind: 'oidc',
        config: { ...config, scope: 'openid', idTokenConfig: undefined } as OidcConfig,
        clientSecret: '',
      },
      fresh,
    );
    const metadata = discovered.serverMetadata();
    if (!metadata.authorization_endpoint || !metadata.token_endpoint || !metadata.userinfo_endpoint) {
      throw errors.connector(
        'connector.invalid_config',
        'the discovery document names no authorization, token or userinfo endpoint',
      );
    }
    return {
      authorization: metadata.authorization_endpoint,
      token: metadata.token_endpoint,
      userInfo: metadata.userinfo_endpoint,
    };
  }

  return {
    /** Checks that the upstream answers as configured (discovery), before a config is stored. */
    async probe(connector: UsableConnector): Promise<void> {
      if (connector.kind === 'oauth2') await oauth2Endpoints(connector.config, true);
      else if (!explicitOidc(connector)) await oidcConfiguration(connector, true);
    },

    /** The URL to send the browser to, and what its callback must match. */
    async authorize(
      connector: UsableConnector,
      redirectUri: string,
      state: string,
    ): Promise<{ url: string; pending: PendingAuthorization }> {
      const codeVerifier = client.randomPKCECodeVerifier();
      const codeChallenge = await client.calculatePKCECodeChallenge(codeVerifier);
      const extra = authorizationParameters(connector);
      const protocol = {
        redirect_uri: redirectUri,
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      };
      if (connector.kind === 'oauth2') {
        const endpoints = await oauth2Endpoints(connector.config);
        const url = byHand(endpoints.authorization, connector.config.clientId, {
          ...extra,
          ...protocol,
          ...(connector.config.scope && { scope: connector.config.scope }),
        });
        return { url, pending: { state, codeVerifier, redirectUri } };
      }
      const nonce = client.randomNonce();
      const explicit = explicitOidc(connector);
      const params = { ...extra, ...protocol, scope: connector.config.scope, nonce };
      const url = explicit
        ? byHand(explicit.config.authorizationEndpoint!, connector.config.clientId, params)
        : client.buildAuthorizationUrl(await oidcConfiguration(connector), params).href;
      return { url, pending: { state, nonce, codeVerifier, redirectUri } };
    },

    /**
     * The callback's parameters (`code`, `state`, and `iss` or `error` as the upstream sent them) turned into the
     * user's profile: the state must be the one sent, the code is redeemed with the PKCE verifier.
     */
    async callback(
      connector: UsableConnector,
      pending: PendingAuthorization,
      params: Record<string, string>,
    ): Promise<UpstreamProfile> {
      if (typeof params.state !== 'string' || !sameState(params.state, pending.state)) {
        throw errors.connector(
          'connector.authorization_failed',
          "the callback's state is not the one this sign-in sent",
        );
      }
      if (params.error) {
        throw errors.connector('connector.authorization_failed', `the provider refused: ${params.error.slice(0, 64)}`, {
          error: params.error.slice(0, 64),
          ...(params.error_description && { errorDescription: params.error_description.slice(0, 256) }),
        });
      }
      if (typeof params.code !== 'string' || !params.code)
        throw errors.connector('connector.invalid_response', 'the callback carries no code');
      if (connector.kind === 'oauth2') {
        return oauth2Callback(
          fetchOf(connector.config.issuer),
          connector,
          await oauth2Endpoints(connector.config),
          pending,
          params.code,
        );
      }
      const explicit = explicitOidc(connector);
      if (explicit) return explicitOidcCallback(outbound.fetch, explicit, pending, params.code);
      const configuration = await oidcConfiguration(connector);
      const callbackUrl = new URL(pending.redirectUri);
      for (const [name, value] of Object.entries(params)) callbackUrl.searchParams.set(name, value);
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(
          configuration,
          callbackUrl,
          {
            pkceCodeVerifier: pending.codeVerifier,
            expectedState: pending.state,
            expectedNonce: pending.nonce,
            idTokenExpected: true,
          },
          connector.kind === 'oidc' ? customParameters(connector.config) : undefined,
        );
      } catch (error) {
        throw grantFailure(error);
      }
      const claims: Record<string, unknown> = { ...tokens.claims() };
      if (configuration.serverMetadata().userinfo_endpoint) {
        try {
          Object.assign(claims, await client.fetchUserInfo(configuration, tokens.access_token, String(claims.sub)), {
            sub: claims.sub,
          });
        } catch (error) {
          throw (
            ownFailure(error) ??
            errors.connector('connector.invalid_response', `the userinfo endpoint failed: ${describe(error)}`)
          );
        }
      }
      const map =
        connector.kind === 'oidc'
          ? { ...OIDC_PROFILE_DEFAULTS, ...connector.config.profileMap }
          : OIDC_PROFILE_DEFAULTS;
      const profile = profileOf(claims, map);
      if (connector.kind === 'sso' && connector.config.trustUnverifiedEmail && profile.email)
        profile.emailVerified = true;
      return { ...profile, issuer: configuration.serverMetadata().issuer };
    },
  };
}

export type Upstreams = ReturnType<typeof createUpstreams>;

/** A failure of our own fetch (the outbound policy, an unreachable upstream), which openid-client wraps. */
function ownFailure(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  return error instanceof Error && error.cause instanceof DomainError ? error.cause : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 200) : 'unknown error';
}

/** What openid-client's failures mean for the client: a refused code, a bad ID token, or a malformed answer. */
function grantFailure(error: unknown): DomainError {
  const own = ownFailure(error);
  if (own) return own;
  if (error instanceof client.AuthorizationResponseError) {
    return errors.connector('connector.authorization_failed', `the provider refused: ${error.error.slice(0, 64)}`);
  }
  if (error instanceof client.ResponseBodyError) {
    return error.error === 'invalid_grant'
      ? errors.connector(
          'connector.social_auth_code_invalid',
          'the provider refused the authorization code (wrong, expired or already used)',
        )
      : errors.connector('connector.invalid_response', `the token endpoint answered ${error.error.slice(0, 64)}`);
  }
  const text = describe(error);
  if (/id[ _]?token|nonce|JWT|JWS|signature|"iss"|"aud"/i.test(text)) {
    return errors.connector('connector.social_id_token_invalid', `the ID token does not verify: ${text}`);
  }
  return errors.connector('connector.invalid_response', `the provider's answer could not be used: ${text}`);
}

function profileOf(claims: Record<string, unknown>, map: ProfileMap): UpstreamProfile {
  const text = (claim: string | undefined) => {
    const value = claim === undefined ? undefined : claims[claim];
    if (typeof value === 'string' && value.trim()) return value.trim().slice(0, 2048);
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    return undefined;
  };
  const id = text(map.id);
  if (!id)
    throw errors.connector(
      'connector.invalid_response',
      `the provider's profile has no ${map.id ?? 'id'} to identify the user by`,
    );
  const email = text(map.email)?.toLowerCase();
  // A picture that is no http(s) URL is the provider's mistake (or worse): the account gets none from it.
  const avatar = text(map.avatar);
  const picture = avatar !== undefined && isPictureUrl(avatar) ? avatar : undefined;
  const verified = map.emailVerified === undefined ? undefined : claims[map.emailVerified];
  return {
    id,
    ...(email && { email }),
    emailVerified: Boolean(email) && (verified === true || verified === 'true'),
    ...(text(map.phone) && { phone: text(map.phone)!.replace(/\D/g, '') }),
    ...(text(map.name) && { name: text(map.name) }),
    ...(picture && { avatar: picture }),
    rawData: Object.fromEntries(Object.entries(claims).filter(([claim]) => !PROTOCOL_CLAIMS.has(claim))),
  };
}

/** ID token claims about the token itself rather than the user: not kept in an identity's details. */
const PROTOCOL_CLAIMS: ReadonlySet<string> = new Set([
  'aud',
  'azp',
  'exp',
  'iat',
  'nbf',
  'nonce',
  'at_hash',
  'c_hash',
  's_hash',
  'sid',
  'auth_time',
  'jti',
]);

/** An OIDC connector configured with its endpoints (Logto's shape) rather than an issuer to discover. */
type ExplicitOidc = UsableConnector & { kind: 'oidc'; verification: IdTokenVerification };

function explicitOidc(connector: UsableConnector): ExplicitOidc | undefined {
  if (connector.kind !== 'oidc' || connector.config.issuer) return undefined;
  const { idTokenVerificationConfig, idTokenConfig } = connector.config;
  const verification =
    idTokenVerificationConfig ?? (idTokenConfig && { jwksUri: idTokenConfig.jwksUri, issuer: idTokenConfig.issuer });
  return verification ? { ...connector, verification } : undefined;
}

/** Logto's `customConfig`, with its names in snake case as Logto sends them. */
function customParameters(config: { customConfig?: Record<string, string> }): Record<string, string> {
  return Object.fromEntries(Object.entries(config.customConfig ?? {}).map(([name, value]) => [snakeCase(name), value]));
}

/** The authorization request's parameters beyond the flow's own: `authRequestOptionalConfig` (OIDC), then `customConfig`. */
function authorizationParameters(connector: UsableConnector): Record<string, string> {
  if (connector.kind === 'sso') return {};
  const optional = connector.kind === 'oidc' ? (connector.config.authRequestOptionalConfig ?? {}) : {};
  const named = Object.entries(optional).map(([name, value]) => [
    AUTH_REQUEST_PARAMETERS[name as keyof typeof AUTH_REQUEST_PARAMETERS],
    value,
  ]);
  return { ...Object.fromEntries(named), ...customParameters(connector.config) };
}

/** An authorization URL built by hand: the endpoint's own query kept, then the code flow's parameters. */
function byHand(endpoint: string, clientId: string, params: Record<string, string>): string {
  const url = new URL(endpoint);
  for (const [name, value] of Object.entries({ ...params, response_type: 'code', client_id: clientId }))
    url.searchParams.set(name, value);
  return url.href;
}

/** The code redeemed at the token endpoint (PKCE, the client authenticated as configured, `customConfig` added). */
async function redeemCode(
  fetch: OutboundFetch,
  tokenEndpoint: string,
  connector: UsableConnector & { kind: 'oidc' | 'oauth2' },
  pending: PendingAuthorization,
  code: string,
): Promise<Record<string, unknown>> {
  const { config, clientSecret } = connector;
  const form = new URLSearchParams({
    ...customParameters(config),
    grant_type: 'authorization_code',
    code,
    redirect_uri: pending.redirectUri,
    code_verifier: pending.codeVerifier,
  });
  const format = connector.kind === 'oauth2' ? connector.config.tokenEndpointResponseType : 'json';
  const headers: Record<string, string> = {
    accept: format === 'query-string' ? 'application/x-www-form-urlencoded' : 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
  };
  if (config.tokenEndpointAuthMethod === 'client_secret_post') {
    form.set('client_id', config.clientId);
    form.set('client_secret', clientSecret);
  } else if (config.tokenEndpointAuthMethod === 'client_secret_jwt') {
    form.set('client_id', config.clientId);
    form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    form.set(
      'client_assertion',
      await clientAssertion(
        config.clientId,
        clientSecret,
        tokenEndpoint,
        config.clientSecretJwtSigningAlgorithm ?? 'HS256',
      ),
    );
  } else {
    const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    headers.authorization = `Basic ${Buffer.from(`${encode(config.clientId)}:${encode(clientSecret)}`).toString('base64')}`;
  }
  const response = await fetch(tokenEndpoint, { method: 'POST', headers, body: form.toString() });
  const answer = await parseAnswer(response, format);
  // Some providers (GitHub) refuse a code with 200 and an `error` in the body.
  if (!response.ok || answer.error !== undefined) {
    throw answer.error === 'invalid_grant' || answer.error === 'bad_verification_code'
      ? errors.connector(
          'connector.social_auth_code_invalid',
          'the provider refused the authorization code (wrong, expired or already used)',
        )
      : errors.connector(
          'connector.invalid_response',
          `the token endpoint answered ${response.status}${typeof answer.error === 'string' ? ` ${answer.error.slice(0, 64)}` : ''}`,
        );
  }
  return answer;
}

/** RFC 7523's client assertion for `client_secret_jwt`: short-lived, for this token endpoint only, used once (its jti). */
function clientAssertion(
  clientId: string,
  secret: string,
  tokenEndpoint: string,
  alg: 'HS256' | 'HS384' | 'HS512',
): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(tokenEndpoint)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(new TextEncoder().encode(secret));
}

/** The userinfo endpoint's JSON object for an access token. */
async function userInfo(
  fetch: OutboundFetch,
  endpoint: string,
  accessToken: unknown,
): Promise<Record<string, unknown>> {
  if (typeof accessToken !== 'string' || !accessToken)
    throw errors.connector('connector.invalid_response', 'the token endpoint answered no access_token');
  const response = await fetch(endpoint, {
    method: 'GET',
    headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` },
  });
  const profile = await parseAnswer(response);
  if (!response.ok)
    throw errors.connector('connector.invalid_response', `the userinfo endpoint answered ${response.status}`);
  return profile;
}

async function explicitOidcCallback(
  fetch: OutboundFetch,
  connector: ExplicitOidc,
  pending: PendingAuthorization,
  code: string,
): Promise<UpstreamProfile> {
  const { config } = connector;
  const answer = await redeemCode(fetch, config.tokenEndpoint!, connector, pending, code);
  const idToken = await verifyIdToken(fetch, answer.id_token, {
    verification: connector.verification,
    clientId: config.clientId,
    nonce: pending.nonce ?? '',
  });
  const claims: Record<string, unknown> = { ...idToken };
  if (config.userInfoEndpoint) {
    const extra = await userInfo(fetch, config.userInfoEndpoint, answer.access_token);
    // OpenID Connect Core §5.3.2: a userinfo answer about anyone else is not used.
    if (extra.sub !== idToken.sub)
      throw errors.connector('connector.invalid_response', 'the userinfo endpoint answered for another subject');
    Object.assign(claims, extra);
  }
  return {
    ...profileOf(claims, { ...OIDC_PROFILE_DEFAULTS, ...config.profileMap }),
    ...(typeof idToken.iss === 'string' && { issuer: idToken.iss }),
  };
}

async function oauth2Callback(
  fetch: OutboundFetch,
  connector: UsableConnector & { kind: 'oauth2' },
  endpoints: { token: string; userInfo: string },
  pending: PendingAuthorization,
  code: string,
): Promise<UpstreamProfile> {
  const answer = await redeemCode(fetch, endpoints.token, connector, pending, code);
  const profile = await userInfo(fetch, endpoints.userInfo, answer.access_token);
  return profileOf(profile, { ...OAUTH2_PROFILE_DEFAULTS, ...connector.config.profileMap });
}

/**
 * A JSON object, or a form-encoded one (`access_token=…&…`, as GitHub answers): `json` and `query-string` (Logto's
 * `tokenEndpointResponseType`) read only that format; without one, JSON or a body the provider says is form encoded.
 */
async function parseAnswer(response: Response, format?: 'json' | 'query-string'): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (format === 'query-string') return Object.fromEntries(new URLSearchParams(text));
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    if (format === undefined && (response.headers.get('content-type') ?? '').includes('form-urlencoded'))
      return Object.fromEntries(new URLSearchParams(text));
  }
  throw errors.connector(
    'connector.invalid_response',
    `the provider answered ${response.status} without a JSON object`,
  );
}
