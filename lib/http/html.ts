import { createHash } from 'node:crypto';

/** The service's server-rendered pages: plain HTML, one stylesheet allowed by its hash, no script. */
const STYLE = `
body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1b1d24;display:flex;justify-content:center;margin:0;padding:8vh 1rem 2rem}
main{background:#fff;padding:2rem 2.5rem;border-radius:12px;box-shadow:0 2px 12px #0001;width:100%;max-width:24rem;box-sizing:border-box;overflow-wrap:anywhere}
@media (max-width:30rem){body{padding:0}main{border-radius:0;box-shadow:none;padding:1.5rem 1.25rem;min-height:100vh}}
h1{font-size:1.3rem;margin-top:0}h2{font-size:1rem;margin:1.5rem 0 0}label{display:block;margin:.8rem 0 .3rem;font-size:.9rem}
input{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #8a90a2;border-radius:6px;font-size:1rem}
input[aria-invalid=true]{border:2px solid #b3261e}
button{margin-top:1.2rem;width:100%;padding:.7rem;border:0;border-radius:6px;background:#3556d8;color:#fff;font-size:1rem;cursor:pointer}
button.secondary{background:#e4e7ee;color:#223}a{color:#2545c4}
:focus-visible{outline:3px solid #1b1d24;outline-offset:2px}
.error{color:#b3261e;font-size:.9rem}.field-error{color:#b3261e;font-size:.85rem;margin:.3rem 0 0}
.hint{color:#4a5063;font-size:.85rem;margin:.3rem 0 0}.notice{background:#e6f4ea;color:#0d5223;padding:.6rem .8rem;border-radius:6px}
.alert{background:#fce8e6;color:#8c1d18;padding:.6rem .8rem;border-radius:6px}.alert p{margin:0}.alert p+p{margin-top:.5rem}
.brand{text-align:center;margin-bottom:1rem}.brand img{max-width:10rem;max-height:4rem}
.qr{display:block;margin:0 auto}code{font-family:ui-monospace,monospace;word-break:break-all}.codes{columns:2;font-size:1.05rem}
.links{font-size:.9rem;margin:1rem 0 0}.divider{border:0;border-top:1px solid #e4e7ee;margin:1.5rem 0 0}ul{padding-left:1.2rem}
`;

/** The CSP source expression allowing exactly one `<style>` element with this text. */
export function styleSource(css: string): string {
  return `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
}

/** CSP source expression allowing exactly the `<style>` element above. */
export const STYLE_SOURCE = styleSource(STYLE);

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A whole page; `body` is trusted HTML (escape what goes into it). `extraStyle`, a style sheet applied after the
 * service's own, must have been made safe for a `<style>` element (see `styleElementText`) and its source allowed by
 * the page's policy.
 */
export function htmlPage(title: string, body: string, extraStyle?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>${extraStyle ? `<style>${extraStyle}</style>` : ''}</head><body><main>${body}</main></body></html>`;
}

/**
 * A style sheet as the text of a `<style>` element: `</` becomes `<\/`, the same to CSS (`\/` is `/`) but never
 * the end of the element to HTML, so the sheet cannot close its element and put markup on the page.
 */
export function styleElementText(css: string): string {
  return css.replaceAll('</', '<\\/');
}

/** A page with a heading, one paragraph and, optionally, a link onwards. */
export function messagePage(title: string, message: string, link?: { href: string; label: string }): string {
  const back = link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : '';
  return htmlPage(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${back}`);
}
