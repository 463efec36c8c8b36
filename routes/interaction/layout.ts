import { escapeHtml, htmlPage, styleElementText, styleSource } from '../../lib/http/html.ts';

/**
 * The building blocks of the sign-in pages: plain HTML forms that work without JavaScript. Every input has
 * its label; a field's error is tied to it (`aria-invalid`, `aria-describedby`) and takes the focus; an
 * error about the whole form is announced (`role="alert"`).
 */

/** The hidden field every form carries: the interaction's CSRF token. */
export const CSRF_FIELD = 'csrf_token';

/**
 * Who the user is signing in to: the application's name, and its logo when it has one; `darkLogoUrl` is shown
 * instead where the browser prefers a dark color scheme. A sign-in for an organization adds its colors (buttons
 * and links; `darkPrimaryColor` where the browser prefers dark) and its style sheet.
 */
export interface Branding {
  appName: string;
  logoUrl?: string;
  darkLogoUrl?: string;
  primaryColor?: string;
  darkPrimaryColor?: string;
  customCss?: string;
}

/** The style sheet a branding adds to the service's own, ready for a `<style>` element; undefined when none. */
export function brandingStyle(branding: Branding): string | undefined {
  const colored = (color: string) => `button:not(.secondary){background:${color}}a{color:${color}}`;
  const sheet = [
    branding.primaryColor ? colored(branding.primaryColor) : '',
    branding.darkPrimaryColor ? `@media (prefers-color-scheme: dark){${colored(branding.darkPrimaryColor)}}` : '',
    branding.customCss ?? '',
  ].join('');
  return sheet ? styleElementText(sheet) : undefined;
}

/** The CSP sources of the style sheet a branding adds (none or one). */
export function brandingStyleSources(branding: Branding): string[] {
  const sheet = brandingStyle(branding);
  return sheet ? [styleSource(sheet)] : [];
}

/** What a rejected form says: about one field when `field` names it, else about the whole form. */
export interface FormProblem {
  message: string;
  field?: string;
  /** A way out the message suggests, e.g. "Sign in instead" when the email already has an account. */
  link?: { href: string; label: string };
}

export interface Field {
  /** The form field's name; the input's id is `${form}-${name}`. */
  name: string;
  label: string;
  type?: 'text' | 'email' | 'tel' | 'password';
  autocomplete?: string;
  inputmode?: 'numeric' | 'email' | 'tel';
  value?: string;
  hint?: string;
  maxlength?: number;
}

export function csrfInput(csrf: string): string {
  return `<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrf)}">`;
}

function input(formId: string, field: Field, problem: FormProblem | undefined, focus: boolean): string {
  const id = `${formId}-${field.name}`;
  const error = problem?.field === field.name ? problem.message : undefined;
  const described = [field.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const attributes = [
    `id="${id}"`,
    `name="${field.name}"`,
    `type="${field.type ?? 'text'}"`,
    'required',
    field.autocomplete ? `autocomplete="${field.autocomplete}"` : '',
    field.inputmode ? `inputmode="${field.inputmode}"` : '',
    field.maxlength ? `maxlength="${field.maxlength}"` : '',
    field.value && field.type !== 'password' ? `value="${escapeHtml(field.value)}"` : '',
    error ? 'aria-invalid="true"' : '',
    described ? `aria-describedby="${described}"` : '',
    focus ? 'autofocus' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return `<label for="${id}">${escapeHtml(field.label)}</label>
<input ${attributes}>${field.hint ? `<p class="hint" id="${id}-hint">${escapeHtml(field.hint)}</p>` : ''}${
    error ? `<p class="field-error" id="${id}-error">${escapeHtml(error)}</p>` : ''
  }`;
}

/**
 * A form posting to `action` with its CSRF token. The field a problem names gets the focus; without one,
 * the first field does when `autofocus` is set (the main form of the page).
 */
export function form(options: {
  id: string;
  action: string;
  csrf: string;
  fields: Field[];
  submit: string;
  problem?: FormProblem;
  autofocus?: boolean;
  hidden?: Record<string, string>;
  secondary?: boolean;
}): string {
  const named = options.problem?.field && options.fields.some((field) => field.name === options.problem?.field);
  const focusName = named ? options.problem!.field : options.autofocus ? options.fields[0]?.name : undefined;
  const hidden = Object.entries(options.hidden ?? {})
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  const fields = options.fields
    .map((field) => input(options.id, field, options.problem, field.name === focusName))
    .join('\n');
  return `<form method="post" action="${escapeHtml(options.action)}" id="${options.id}">${csrfInput(options.csrf)}${hidden}
${fields}
<button${options.secondary ? ' class="secondary"' : ''} type="submit">${escapeHtml(options.submit)}</button></form>`;
}

/** A form with nothing but a button (Cancel, Deny). */
export function buttonForm(action: string, csrf: string, label: string): string {
  return `<form method="post" action="${escapeHtml(action)}">${csrfInput(csrf)}<button class="secondary" type="submit">${escapeHtml(label)}</button></form>`;
}

export function link(href: string, label: string): string {
  return `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`;
}

/** One line of links under a form: `text` (escaped) then the link. */
export function links(...items: Array<{ text?: string; href: string; label: string }>): string {
  return items
    .map((item) => `<p class="links">${item.text ? `${escapeHtml(item.text)} ` : ''}${link(item.href, item.label)}</p>`)
    .join('\n');
}

/**
 * A whole page: the application's logo, the heading, a notice or the problem that is not about one field
 * (announced), then `body` (trusted HTML).
 */
export function page(options: {
  title: string;
  heading: string;
  branding: Branding;
  body: string;
  problem?: FormProblem;
  notice?: string;
}): string {
  const { branding, problem } = options;
  const light = branding.logoUrl ?? branding.darkLogoUrl;
  const dark =
    branding.logoUrl && branding.darkLogoUrl
      ? `<source media="(prefers-color-scheme: dark)" srcset="${escapeHtml(branding.darkLogoUrl)}">`
      : '';
  const logo = light
    ? `<div class="brand"><picture>${dark}<img src="${escapeHtml(light)}" alt="${escapeHtml(`${branding.appName} logo`)}"></picture></div>`
    : '';
  const alert =
    problem && !problem.field
      ? `<div class="alert" role="alert"><p>${escapeHtml(problem.message)}</p>${problem.link ? `<p>${link(problem.link.href, problem.link.label)}</p>` : ''}</div>`
      : '';
  const notice = options.notice ? `<p class="notice" role="status">${escapeHtml(options.notice)}</p>` : '';
  return htmlPage(
    `${options.title} · ${branding.appName}`,
    `${logo}<h1>${escapeHtml(options.heading)}</h1>
${notice}${alert}${options.body}`,
    brandingStyle(branding),
  );
}
