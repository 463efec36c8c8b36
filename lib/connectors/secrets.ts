/** What responses show of a secret: never the secret, only its last four characters to tell secrets apart. */
export function maskSecret(secret: string): string {
  return `********${secret.length > 12 ? secret.slice(-4) : ''}`;
}
