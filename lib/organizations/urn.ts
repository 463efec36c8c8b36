/** The audience of organization tokens, as Logto spells it (its RFC 0001): `urn:logto:organization:<id>`. */
export const organizationUrn = (organizationId: string): string => `urn:logto:organization:${organizationId}`;

/** Lifetime of organization tokens: Logto's, since an organization is no API resource with a TTL of its own. */
export const ORGANIZATION_TOKEN_TTL_SECONDS = 3600;
