/** The audience of organization tokens, as Logto spells it (its RFC 0001): `urn:logto:organization:<id>`. */
export const organizationUrn = (organizationId: string): string => `urn:logto:organization:${organizationId}`;
