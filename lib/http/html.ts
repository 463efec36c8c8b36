import { createHash } from 'node:crypto';

/** The service's server-rendered pages: plain HTML, one stylesheet allowed by its hash, no script. */
const STYLE = `
body{font-family:system-ui,sans-serif;background:#f4f5f7;display:flex;justify-content:center;padding-top:10vh;margin:0}
main{background:#fff;padding:2rem 2.5rem;border-radius:12px;box-shadow:0 2px 12px #0001;width:22rem}
h1{font-size:1.3rem;margin-top:0}label{display:block;margin:.8rem 0 .3rem;font-size:.9rem}
input{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #ccd;border-radius:6px}
button{margin-top:1.2rem;width:100%;padding:.7rem;border:0;border-radius:6px;background:#3556d8;color:#fff;font-size:1rem}
button.secondary{background:#e4e7ee;color:#223}.error{color:#b3261e;font-size:.9rem}ul{padding-left:1.2rem}
`;

/** CSP source expression allowing exactly the `<style>` element above. */
export const STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A whole page; `body` is trusted HTML (escape what goes into it). */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** A page with a heading, one paragraph and, optionally, a link onwards. */
export function messagePage(title: string, message: string, link?: { href: string; label: string }): string {
  const back = link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : '';
  return htmlPage(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${back}`);
}
