import { ApiError } from '../../api.ts';
import { config } from '../../config.ts';

export interface SocialConnector {
  id: string;
  connectorId: 'oidc' | 'oauth2';
  target: string;
  syncProfile: boolean;
  config: Record<string, unknown>;
  metadata: { target: string; name?: Record<string, string>; logo: string | null; logoDark: string | null };
}

export type { SsoConnector } from '../../../../lib/connectors/sso-connector.ts';

export const FACTORIES = [
  { value: 'oidc', label: 'OpenID Connect' },
  { value: 'oauth2', label: 'OAuth 2.0' },
] as const;

export const socialName = (connector: SocialConnector) =>
  connector.metadata.name?.en ?? Object.values(connector.metadata.name ?? {})[0] ?? connector.target;

/** The callback URL to register at every provider of a kind (the service's sign-in pages receive it). */
export const callbackUrl = (kind: 'social' | 'sso') =>
  `${config.baseUrl.replace(/\/+$/, '')}/interaction/callback/${kind}`;

/**
 * What the API said about one field of a connector's config: it checks the config against the connector's kind and
 * names the problems `config.<field>` (422 `connector.invalid_config`).
 */
export function configError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const messages = error.issues
    .filter((issue) => issue.path === `config.${field}` || issue.path.startsWith(`config.${field}.`))
    .map((issue) => issue.message);
  return messages.length ? messages.join('; ') : undefined;
}

/** The error to show by the button: not when the config's fields (`shown`) already show all of it. */
export function unshownError(error: unknown, shown: readonly string[], bodyFields: readonly string[]): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.isAboutFields(bodyFields)) return undefined;
  const issues = error.issues;
  const atFields =
    issues.length > 0 &&
    issues.every((issue) =>
      shown.some((field) => issue.path === `config.${field}` || issue.path.startsWith(`config.${field}.`)),
    );
  return atFields ? undefined : error;
}

/** A text the connector's config holds (secrets come back masked). */
export const text = (value: unknown) => (typeof value === 'string' ? value : '');
