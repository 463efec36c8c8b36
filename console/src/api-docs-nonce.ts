/**
 * Imported first by the API reference page, so it runs before any library module: every <style> element made on
 * the page carries the page's CSP nonce. Redoc's libraries create theirs as they load, without one. Only the page's
 * own bundle runs here (script-src 'self'), so only it can make use of this.
 */
const meta = document.querySelector<HTMLMetaElement>('meta[name="app-config"]');
const { styleNonce } = JSON.parse(meta?.content ?? '{}') as { styleNonce?: string };

const createElement = document.createElement.bind(document);
document.createElement = ((tagName: string, options?: ElementCreationOptions) => {
  const element = createElement(tagName, options);
  if (styleNonce && tagName.toLowerCase() === 'style') element.setAttribute('nonce', styleNonce);
  return element;
}) as typeof document.createElement;
