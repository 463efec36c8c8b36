export interface Hook {
  id: string;
  name: string;
  events: string[];
  config: { url: string; headers?: Record<string, string> };
  enabled: boolean;
  disabledReason: string | null;
  /** `hmac`: signed with a shared secret; `ed25519`: with a private key the service keeps, verified with `publicKey`. */
  signature: 'hmac' | 'ed25519';
  publicKey: string | null;
  ordering: 'none' | 'entity';
  createdAt: number;
  updatedAt: number;
  executionStats?: { successCount: number; requestCount: number };
  signingKey?: string;
}

/** `Name: value` lines, as the headers field shows them. */
export const headerLines = (headers: Record<string, string> | undefined) =>
  Object.entries(headers ?? {}).map(([name, value]) => `${name}: ${value}`);

/** Parses `Name: value` lines; a line without a colon is a header with an empty value, which the API judges. */
export function parseHeaderLines(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines.filter((text) => text.trim())) {
    const colon = line.indexOf(':');
    if (colon < 0) headers[line.trim()] = '';
    else headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}
