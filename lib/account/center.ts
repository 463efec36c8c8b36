import { z } from 'zod';
import { errors } from '../errors.ts';
import type { DocumentStore } from '../ports/documents.ts';

/** Logto's `AccountCenterControlValue`: hidden, shown, or shown and editable by the user through the Account API. */
export const FIELD_CONTROLS = ['Off', 'ReadOnly', 'Edit'] as const;
export type FieldControl = (typeof FIELD_CONTROLS)[number];

/** The account fields the account center controls, as Logto names them. */
export const ACCOUNT_FIELDS = [
  'name',
  'avatar',
  'profile',
  'email',
  'phone',
  'password',
  'username',
  'social',
  'customData',
  'mfa',
  'session',
] as const;
export type AccountField = (typeof ACCOUNT_FIELDS)[number];

export interface AccountCenter {
  id: 'default';
  /** Off: every Account API route answers 403 `account_center.not_enabled`. */
  enabled: boolean;
  fields: Record<AccountField, FieldControl>;
  /**
   * Where the application sends a user who wants their account deleted (Logto's account center links to it). The
   * service serves no account page: it is data for the application to show.
   */
  deleteAccountUrl: string | null;
  /**
   * WebAuthn related origins: other sites whose pages may use the service's passkeys (same RP ID), published at
   * `/.well-known/webauthn` and accepted by the service's passkey ceremonies beside its own origin.
   */
  webauthnRelatedOrigins: string[];
}

/**
 * What a fresh service ships: the Account API on, users may edit what is theirs to manage (their name, picture,
 * profile, sign-in identifiers, password, linked accounts, factors and sessions — the sensitive ones behind a fresh
 * identity verification), but not `customData`, which applications use for data users must not forge (plans, flags).
 */
export const DEFAULT_ACCOUNT_CENTER: AccountCenter = {
  id: 'default',
  enabled: true,
  fields: {
    name: 'Edit',
    avatar: 'Edit',
    profile: 'Edit',
    email: 'Edit',
    phone: 'Edit',
    password: 'Edit',
    username: 'Edit',
    social: 'Edit',
    customData: 'Off',
    mfa: 'Edit',
    session: 'Edit',
  },
  deleteAccountUrl: null,
  webauthnRelatedOrigins: [],
};

const control = z.enum(FIELD_CONTROLS);
const fieldsShape = Object.fromEntries(ACCOUNT_FIELDS.map((field) => [field, control])) as Record<
  AccountField,
  typeof control
>;

const isHttpUrl = (value: string) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An origin a browser runs WebAuthn on: `https://host[:port]`, or `http:` on a loopback host (the secure contexts),
 * with nothing after it but an optional `/`.
 */
function isWebAuthnOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) return false;
  return url.origin !== 'null' && (value === url.origin || value === `${url.origin}/`);
}

const relatedOrigins = z
  .array(z.string().max(2048).refine(isWebAuthnOrigin, 'must be an https origin (http only on a loopback host)'))
  .max(50);

export const accountCenterSchema = z.object({
  id: z.literal('default'),
  enabled: z.boolean(),
  fields: z.object(fieldsShape),
  deleteAccountUrl: z.string().nullable(),
  webauthnRelatedOrigins: z.array(z.string()),
});

/**
 * Logto's PATCH: `fields`, when given, replaces every field; one left out is `Off`. `deleteAccountUrl` `''` or
 * `null` removes it. `webauthnRelatedOrigins` replaces the list, each origin kept once.
 */
export const accountCenterPatch = z
  .object({
    enabled: z.boolean().optional(),
    fields: z.object(fieldsShape).partial().strict().optional(),
    deleteAccountUrl: z
      .string()
      .max(2048)
      .refine((value) => value === '' || isHttpUrl(value), 'must be an absolute http(s) URL')
      .nullable()
      .optional(),
    webauthnRelatedOrigins: relatedOrigins.optional(),
  })
  .strict();

type Patch = z.infer<typeof accountCenterPatch>;

const ID = 'default';

/**
 * The one account-center document, over the defaults: a document written before a field existed gets the field's
 * default. Written whole (one settings row, like Logto's).
 */
export function createAccountCenter(store: DocumentStore) {
  const collection = store.collection<{
    _id: string;
    enabled?: boolean;
    fields?: Partial<Record<AccountField, FieldControl>>;
    deleteAccountUrl?: string | null;
    webauthnRelatedOrigins?: string[];
  }>('account_centers');

  async function get(): Promise<AccountCenter> {
    const doc = await collection.findOne({ _id: ID });
    return {
      id: 'default',
      enabled: doc?.enabled ?? DEFAULT_ACCOUNT_CENTER.enabled,
      fields: { ...DEFAULT_ACCOUNT_CENTER.fields, ...doc?.fields },
      deleteAccountUrl: doc?.deleteAccountUrl ?? DEFAULT_ACCOUNT_CENTER.deleteAccountUrl,
      webauthnRelatedOrigins: doc?.webauthnRelatedOrigins ?? DEFAULT_ACCOUNT_CENTER.webauthnRelatedOrigins,
    };
  }

  return {
    get,
    /** The origins beside the service's own that passkey ceremonies may come from. */
    relatedOrigins: async (): Promise<readonly string[]> => (await get()).webauthnRelatedOrigins,
    async update(patch: Patch): Promise<AccountCenter> {
      const set: Record<string, unknown> = {};
      if (patch.enabled !== undefined) set.enabled = patch.enabled;
      if (patch.deleteAccountUrl !== undefined) set.deleteAccountUrl = patch.deleteAccountUrl || null;
      if (patch.webauthnRelatedOrigins) {
        set.webauthnRelatedOrigins = [...new Set(patch.webauthnRelatedOrigins.map((origin) => new URL(origin).origin))];
      }
      if (patch.fields) {
        set.fields = Object.fromEntries(ACCOUNT_FIELDS.map((field) => [field, patch.fields?.[field] ?? 'Off']));
      }
      if (Object.keys(set).length) await collection.updateOne({ _id: ID }, { $set: set }, { upsert: true });
      return get();
    },
  };
}

/**
 * Refuses a request the account center does not allow: 403 `account_center.not_enabled` while it is off,
 * `account_center.field_not_enabled` to read an `Off` field, `account_center.field_not_editable` to change a field
 * that is not `Edit`.
 */
export function fieldAllowed(center: AccountCenter, field: AccountField | undefined, access: 'read' | 'edit'): void {
  if (!center.enabled) throw errors.refused('account_center.not_enabled', 'the account center is not enabled');
  if (!field) return;
  const value = center.fields[field];
  if (access === 'read' && value === 'Off') {
    throw errors.refused('account_center.field_not_enabled', `the account center does not show ${field}`);
  }
  if (access === 'edit' && value !== 'Edit') {
    throw errors.refused('account_center.field_not_editable', `the account center does not let users change ${field}`);
  }
}

/** Whether a field may be shown (`ReadOnly` or `Edit`). */
export const readable = (center: AccountCenter, field: AccountField): boolean => center.fields[field] !== 'Off';

export type AccountCenterSettings = ReturnType<typeof createAccountCenter>;
