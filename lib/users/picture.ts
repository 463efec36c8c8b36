/**
 * Whether a URL may be a user's picture (`avatar`, the `picture` claim relying parties receive): absolute `http:`
 * or `https:`. Anything else (`javascript:`, `data:`, `file:`) would be a script or a local resource in the pages
 * of every application that shows it.
 */
export function isPictureUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'https:' || protocol === 'http:';
}
