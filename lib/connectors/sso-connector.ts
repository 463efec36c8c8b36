/**
 * An enterprise SSO connector as stored and answered (the answer adds `providerType`). In a file of its own,
 * without imports, so the console reads the same type.
 */
export interface SsoConnector {
  id: string;
  providerName: 'OIDC';
  connectorName: string;
  /** Empty until configured; the client secret is kept sealed beside it. */
  config: Record<string, unknown>;
  /** Email domains (lower case) whose users this connector signs in. */
  domains: string[];
  branding: { displayName?: string; logo?: string; darkLogo?: string };
  syncProfile: boolean;
  createdAt: number;
}
