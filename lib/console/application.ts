import { DuplicateKeyError } from '../ports/documents.ts';
import type { ApplicationsRepository } from '../applications/repository.ts';

/** The console's own OIDC client: a public single-page application built into every instance. */
export const CONSOLE_APPLICATION_ID = 'console';

export function consoleUrls(baseUrl: string) {
  const home = `${baseUrl}/console`;
  return { home, callback: `${home}/callback`, signedOut: `${home}/signed-out` };
}

/**
 * Creates the console's application on first start, and puts its redirect URIs back on every start, so that a
 * `BASE_URL` change (or an edit through the API) never locks the operators out of the console.
 */
export async function ensureConsoleApplication(
  repositories: { applications: ApplicationsRepository },
  baseUrl: string,
): Promise<void> {
  const urls = consoleUrls(baseUrl);
  const oidcClientMetadata = { redirectUris: [urls.callback], postLogoutRedirectUris: [urls.signedOut] };
  const existing = await repositories.applications.findById(CONSOLE_APPLICATION_ID);
  if (existing) {
    await repositories.applications.update(CONSOLE_APPLICATION_ID, {
      oidcClientMetadata,
      type: 'SPA',
      isThirdParty: false,
    });
    return;
  }
  try {
    await repositories.applications.insert(
      {
        id: CONSOLE_APPLICATION_ID,
        name: 'Console',
        description: 'The admin console (built in): signs console admins in with PKCE.',
        type: 'SPA',
        oidcClientMetadata,
        customClientMetadata: { allowTokenExchange: false },
        isThirdParty: false,
        createdAt: Date.now(),
      },
      { secretDigest: null, builtIn: true },
    );
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
  }
}
