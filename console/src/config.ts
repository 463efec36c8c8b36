/** What the service tells the page about itself, in `<meta name="app-config">` (no inline script). */
export interface AppConfig {
  /** The service's public URL, mount prefix included. */
  baseUrl: string;
  /** The console's own OIDC client (a public SPA). */
  clientId: string;
  /** The management API's resource indicator: the audience of the console's access token. */
  managementApi: string;
  home: string;
  callback: string;
  signedOut: string;
  /** The CSP nonce of this page's generated styles (the code editor's theme). */
  styleNonce: string;
}

function readConfig(): AppConfig {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="app-config"]');
  if (!meta) throw new Error('the page carries no app-config');
  return JSON.parse(meta.content) as AppConfig;
}

export const config = readConfig();
/** The path the service is mounted at ('' at the root): API and OIDC calls go to this origin under it. */
export const servicePath = new URL(config.baseUrl).pathname.replace(/\/+$/, '');
/** Where the console's own routes start. */
export const consolePath = new URL(config.home).pathname.replace(/\/+$/, '');
