import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigurationError } from '../config.ts';

/** Why a message is sent; Logto's template types. */
export const MESSAGE_PURPOSES = [
  'Register',
  'SignIn',
  'ForgotPassword',
  'Generic',
  'OrganizationInvitation',
  'UserImpersonated',
] as const;
export type MessagePurpose = (typeof MESSAGE_PURPOSES)[number];
/** Purposes whose messages are emails without a code: an invitation's link, the notice of an impersonation. */
type EmailOnlyPurpose = 'OrganizationInvitation' | 'UserImpersonated';
export type CodePurpose = Exclude<MessagePurpose, EmailOnlyPurpose>;

/** One purpose's wording: email subject, plain-text and HTML bodies, and the SMS text (codes only). */
export interface MessageTemplate {
  subject: string;
  text: string;
  html: string;
  sms: string;
}

/** Overrides per purpose and part; what is not given keeps the default. */
export type MessageTemplates = { [P in MessagePurpose]?: Partial<MessageTemplate> };

/** Placeholders a code template may use; a typo would otherwise send a message without its code. */
const CODE_PLACEHOLDERS = ['code', 'applicationName', 'expiresInMinutes', 'recipient'] as const;
/** Placeholders of the notice sent to a user at each impersonation (`actedBy` is " by <actor>" and `reasonGiven` " The reason given: <reason>.", or empty when there is none). */
const IMPERSONATION_PLACEHOLDERS = [
  'applicationName',
  'actorName',
  'actedBy',
  'reason',
  'reasonGiven',
  'issuedAt',
  'expiresAt',
  'recipient',
] as const;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;
const PARTS = ['subject', 'text', 'html', 'sms'] as const;
type Part = (typeof PARTS)[number];
const FILE_SUFFIX: Record<Part, string> = { subject: '.subject.txt', text: '.txt', html: '.html', sms: '.sms.txt' };

function codeTemplate(subject: string, lead: string): MessageTemplate {
  return {
    subject,
    text: `${lead}\n\n    {{code}}\n\nThe code expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this message.\n`,
    html: page(
      `<p>${lead}</p>\n<p style="font-size:28px;font-weight:bold;letter-spacing:6px">{{code}}</p>\n` +
        '<p>The code expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this message.</p>',
    ),
    sms: '{{code}} is your {{applicationName}} verification code. It expires in {{expiresInMinutes}} minutes.',
  };
}

function page(body: string): string {
  return `<!doctype html>\n<html><body style="font-family:sans-serif;line-height:1.5">\n${body}\n</body></html>\n`;
}

const DEFAULT_TEMPLATES: Record<MessagePurpose, MessageTemplate> = {
  Register: codeTemplate(
    'Your {{applicationName}} sign-up code',
    'Use this code to finish creating your {{applicationName}} account:',
  ),
  SignIn: codeTemplate('Your {{applicationName}} sign-in code', 'Use this code to sign in to {{applicationName}}:'),
  ForgotPassword: codeTemplate(
    'Reset your {{applicationName}} password',
    'Use this code to reset your {{applicationName}} password:',
  ),
  Generic: codeTemplate('Your {{applicationName}} verification code', 'Your {{applicationName}} verification code:'),
  OrganizationInvitation: {
    subject: 'You are invited to join {{organizationName}}',
    text:
      'You have been invited to join {{organizationName}}{{invitedBy}}.\n\nAccept the invitation: {{link}}\n\n' +
      'If you were not expecting it, ignore this message.\n',
    html: page(
      '<p>You have been invited to join <strong>{{organizationName}}</strong>{{invitedBy}}.</p>\n' +
        '<p><a href="{{link}}">Accept the invitation</a></p>\n<p>If you were not expecting it, ignore this message.</p>',
    ),
    sms: '',
  },
  UserImpersonated: {
    subject: 'Your {{applicationName}} account was accessed on your behalf',
    text:
      'On {{issuedAt}}, {{applicationName}} was given access to your account on your behalf{{actedBy}}, until {{expiresAt}} at the latest.' +
      '{{reasonGiven}}\n\nIf you did not expect this, contact the support team of {{applicationName}}.\n',
    html: page(
      '<p>On {{issuedAt}}, <strong>{{applicationName}}</strong> was given access to your account on your behalf{{actedBy}}, ' +
        'until {{expiresAt}} at the latest.{{reasonGiven}}</p>\n<p>If you did not expect this, contact the support team of {{applicationName}}.</p>',
    ),
    sms: '',
  },
};

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);

/** Fills `{{name}}` placeholders; a name without a value renders empty, as Logto's templates do. */
export function render(
  template: string,
  values: Readonly<Record<string, string>>,
  format: 'text' | 'html' = 'text',
): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = Object.hasOwn(values, name) ? (values[name] ?? '') : '';
    return format === 'html' ? escapeHtml(value) : value;
  });
}

function placeholdersOf(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
}

const emailOnly = (purpose: MessagePurpose): purpose is EmailOnlyPurpose =>
  purpose === 'OrganizationInvitation' || purpose === 'UserImpersonated';

/** The parts a purpose sends: invitations and impersonation notices go by email only, so they have no SMS text. */
function partsOf(purpose: MessagePurpose): readonly Part[] {
  return emailOnly(purpose) ? ['subject', 'text', 'html'] : PARTS;
}

/** What a purpose's bodies must contain (none for a notice), and the placeholders it knows (undefined: any). */
function placeholderRules(purpose: MessagePurpose): { required?: string; known?: readonly string[] } {
  if (purpose === 'OrganizationInvitation') return { required: 'link' };
  if (purpose === 'UserImpersonated') return { known: IMPERSONATION_PLACEHOLDERS };
  return { required: 'code', known: CODE_PLACEHOLDERS };
}

/** Refuses templates that would send a message without its code or link, or with a misspelt placeholder. */
function validate(purpose: MessagePurpose, template: MessageTemplate, source: string): string[] {
  const problems: string[] = [];
  const { required, known } = placeholderRules(purpose);
  for (const part of partsOf(purpose)) {
    const names = placeholdersOf(template[part]);
    if (part === 'subject' && /[\r\n]/.test(template.subject))
      problems.push(`${source}: ${purpose} subject must be one line`);
    if (required && part !== 'subject' && !names.includes(required))
      problems.push(`${source}: ${purpose} ${part} must contain {{${required}}}`);
    if (!known) continue;
    const unknown = names.filter((name) => !known.includes(name));
    if (unknown.length)
      problems.push(
        `${source}: ${purpose} ${part} uses unknown placeholders ${unknown.map((n) => `{{${n}}}`).join(', ')}`,
      );
  }
  return problems;
}

/**
 * Reads `<Purpose>.subject.txt`, `<Purpose>.txt`, `<Purpose>.html` and `<Purpose>.sms.txt` from a directory. Any
 * other file is refused, so a misnamed template cannot be silently ignored.
 */
export async function readTemplatesDir(dir: string): Promise<MessageTemplates> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => entry.name);
  } catch (error) {
    throw new ConfigurationError(`MESSAGE_TEMPLATES_DIR ${dir} cannot be read: ${(error as Error).message}`);
  }
  const templates: MessageTemplates = {};
  const unexpected: string[] = [];
  for (const name of names.sort()) {
    const match = MESSAGE_PURPOSES.flatMap((purpose) =>
      partsOf(purpose)
        .filter((part) => name === purpose + FILE_SUFFIX[part])
        .map((part) => ({ purpose, part })),
    )[0];
    if (!match) {
      unexpected.push(name);
      continue;
    }
    const content = await readFile(join(dir, name), 'utf8');
    const value = match.part === 'subject' || match.part === 'sms' ? content.replace(/\r?\n$/, '') : content;
    const parts = templates[match.purpose] ?? {};
    parts[match.part] = value;
    templates[match.purpose] = parts;
  }
  if (unexpected.length) {
    throw new ConfigurationError(
      `MESSAGE_TEMPLATES_DIR holds files that name no template: ${unexpected.join(', ')} ` +
        '(expected <Purpose>.subject.txt, .txt, .html or .sms.txt; invitations and impersonation notices have no .sms.txt)',
    );
  }
  return templates;
}

/** Defaults, then the operator's directory, then the library user's templates (code wins, as `config` wins over env). */
export function resolveTemplates(
  layers: Array<{ source: string; templates: MessageTemplates | undefined }>,
): Record<MessagePurpose, MessageTemplate> {
  const problems: string[] = [];
  const resolved = { ...DEFAULT_TEMPLATES };
  for (const { source, templates } of layers) {
    const unknown = Object.keys(templates ?? {}).filter(
      (key) => !(MESSAGE_PURPOSES as readonly string[]).includes(key),
    );
    if (unknown.length)
      problems.push(`${source}: unknown purposes ${unknown.join(', ')} (known: ${MESSAGE_PURPOSES.join(', ')})`);
  }
  for (const purpose of MESSAGE_PURPOSES) {
    for (const { source, templates } of layers) {
      const overrides = templates?.[purpose];
      if (!overrides) continue;
      const unknownParts = Object.keys(overrides).filter(
        (part) => !(partsOf(purpose) as readonly string[]).includes(part),
      );
      if (unknownParts.length) problems.push(`${source}: ${purpose} has no part ${unknownParts.join(', ')}`);
      const notText = Object.entries(overrides)
        .filter(([, value]) => typeof value !== 'string')
        .map(([part]) => part);
      if (notText.length) {
        problems.push(`${source}: ${purpose} ${notText.join(', ')} must be strings`);
        continue;
      }
      const merged = { ...resolved[purpose], ...overrides };
      problems.push(...validate(purpose, merged, source));
      resolved[purpose] = merged;
    }
  }
  if (problems.length) throw new ConfigurationError(`invalid message templates:\n  ${problems.join('\n  ')}`);
  return resolved;
}
