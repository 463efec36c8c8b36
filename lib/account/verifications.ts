import { DomainError, errors } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Messaging, MessageEventContext, Recipient } from '../messaging/index.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { UsersRepository } from '../users/repository.ts';
import { lockedError, type Lockout } from '../sign-in/lockout.ts';
import { createPasswordVerification } from '../sign-in/password.ts';

/** How long a verification record stays usable, as in Logto: a sensitive change must follow its proof closely. */
export const VERIFICATION_RECORD_TTL_SECONDS = 600;

export type AccountVerificationType = 'Password' | 'EmailVerificationCode' | 'PhoneVerificationCode';

/** As kept in the key-value store: who proved what, and until when. Never a password or a code. */
interface StoredRecord {
  id: string;
  userId: string;
  type: AccountVerificationType;
  /** The address or number a code went to (code records). */
  identifier?: Recipient;
  verified: boolean;
  expiresAt: number;
}

export interface IssuedRecord {
  verificationRecordId: string;
  expiresAt: string;
}

const keyOf = (id: string) => `account:verification:${id}`;
/** Marks a record spent as proof of a new identifier; a record proves one new address once. */
const spentKeyOf = (id: string) => `account:verification:spent:${id}`;
const TTL_MS = VERIFICATION_RECORD_TTL_SECONDS * 1000;
/** Record ids are 21 characters; a header far longer names none and is not looked up. */
const MAX_RECORD_ID_LENGTH = 128;

function parse(value: string | null): StoredRecord | null {
  if (value === null) return null;
  try {
    const stored = JSON.parse(value) as Partial<StoredRecord>;
    const complete =
      typeof stored.id === 'string' &&
      typeof stored.userId === 'string' &&
      typeof stored.type === 'string' &&
      typeof stored.verified === 'boolean' &&
      typeof stored.expiresAt === 'number';
    return complete ? (stored as StoredRecord) : null;
  } catch {
    return null;
  }
}

/** Lower-cased email addresses, as stored on users. */
export function normalizedRecipient(to: Recipient): Recipient {
  return to.type === 'email' ? { type: 'email', value: to.value.trim().toLowerCase() } : to;
}

const codeType = (to: Recipient): AccountVerificationType =>
  to.type === 'email' ? 'EmailVerificationCode' : 'PhoneVerificationCode';

/** What a wrong or stale code looks like, as opposed to a failing store or provider. */
const CODE_FAILURES: ReadonlySet<string> = new Set([
  'verification_code.code_mismatch',
  'verification_code.expired',
  'verification_code.not_found',
  'verification_code.exceed_max_try',
]);

const permissionDenied = (why: string) =>
  errors.account(
    'verification_record.permission_denied',
    `this change needs a fresh identity verification (header logto-verification-id): ${why}`,
  );
const recordNotFound = () =>
  errors.account('verification_record.not_found', 'no such verification record for this user');

/**
 * The Account API's verification records (Logto's `/api/verifications/*`): a signed-in user proves who they are
 * (password, or a code sent to their own email or phone) or that they hold a new address (a code sent there).
 * Records live in the key-value store for ten minutes, bound to the user who made them; every secret checked
 * counts toward the account's lockout, shared with sign-in.
 */
export function createAccountVerifications(deps: {
  kv: KeyValueStore;
  repositories: { users: UsersRepository };
  messaging: Pick<Messaging, 'sendCode' | 'verifyCode'>;
  lockout: Lockout;
}) {
  const { kv } = deps;
  const passwords = createPasswordVerification({ repositories: deps.repositories, lockout: deps.lockout });

  async function save(record: StoredRecord): Promise<void> {
    const remaining = record.expiresAt - Date.now();
    if (remaining > 0) await kv.set(keyOf(record.id), JSON.stringify(record), remaining);
  }

  async function create(fields: Omit<StoredRecord, 'id' | 'expiresAt'>): Promise<IssuedRecord> {
    const record: StoredRecord = { ...fields, id: newId(), expiresAt: Date.now() + TTL_MS };
    await save(record);
    return { verificationRecordId: record.id, expiresAt: new Date(record.expiresAt).toISOString() };
  }

  /** The user's unexpired record of that id, or null: another user's record is as unknown as a made-up id. */
  async function find(userId: string, id: string): Promise<StoredRecord | null> {
    const record = parse(await kv.get(keyOf(id)));
    if (!record || record.userId !== userId || Date.now() >= record.expiresAt) return null;
    return record;
  }

  return {
    /** `POST /api/verifications/password`: 422 `session.invalid_credentials` for a wrong password. */
    async password(userId: string, password: string): Promise<IssuedRecord> {
      const result = await passwords({ type: 'userId', value: userId }, password);
      if (!result.ok) {
        if (result.reason === 'locked') throw lockedError('account');
        if (result.reason === 'suspended')
          throw errors.unauthorized('the bearer token is not a valid access token of a signed-in user');
        throw errors.experience('session.invalid_credentials', 'the password is not right');
      }
      return create({ userId, type: 'Password', verified: true });
    },

    /**
     * `POST /api/verifications/verification-code`: sends a code and records it. The recipient's budget applies, and
     * the user's and their address's: a signed-in user cannot spray codes over many addresses. `applicationName`
     * is the application the user is in, named in the message.
     */
    async sendCode(
      userId: string,
      identifier: Recipient,
      context: MessageEventContext,
      applicationName?: string,
    ): Promise<IssuedRecord> {
      const to = normalizedRecipient(identifier);
      await deps.messaging.sendCode({
        purpose: 'Generic',
        to,
        context,
        applicationName,
        senders: { user: userId, ip: context.ip },
      });
      return create({ userId, type: codeType(to), identifier: to, verified: false });
    },

    /** `POST /api/verifications/verification-code/verify`: checks the code under the lockout and marks the record verified. */
    async verifyCode(
      userId: string,
      identifier: Recipient,
      id: string,
      code: string,
    ): Promise<{ verificationRecordId: string }> {
      const to = normalizedRecipient(identifier);
      const record = await find(userId, id);
      if (!record || record.type !== codeType(to) || !record.identifier) throw recordNotFound();
      if (record.identifier.value !== to.value) {
        throw errors.experience(
          to.type === 'email' ? 'verification_code.email_mismatch' : 'verification_code.phone_mismatch',
          `the code of this verification was not sent to this ${to.type === 'email' ? 'email address' : 'phone number'}`,
        );
      }
      let failure: unknown;
      const outcome = await deps.lockout.verify(to, userId, async () => {
        try {
          await deps.messaging.verifyCode({ purpose: 'Generic', to, code });
          return true;
        } catch (error) {
          if (!(error instanceof DomainError) || !CODE_FAILURES.has(error.code)) throw error;
          failure = error;
          return false;
        }
      });
      if (outcome === 'locked') throw lockedError('account');
      if (outcome === 'failed') throw failure;
      await save({ ...record, verified: true });
      return { verificationRecordId: record.id };
    },

    /**
     * The gate of sensitive changes: `id` (the `logto-verification-id` header) must name a verified, unexpired
     * record of this user that proves their identity — a password, or a code sent to their current primary email
     * or phone. Anything else is 401 `verification_record.permission_denied`.
     */
    async assertIdentity(
      user: { id: string; primaryEmail: string | null; primaryPhone: string | null },
      id: string | undefined,
    ): Promise<void> {
      if (!id) throw permissionDenied('no verification record was named');
      if (id.length > MAX_RECORD_ID_LENGTH) throw permissionDenied('the record is unknown, expired or not yours');
      const record = await find(user.id, id);
      if (!record) throw permissionDenied('the record is unknown, expired or not yours');
      if (!record.verified) throw permissionDenied('the record is not verified yet');
      if (record.type === 'Password') return;
      const current = record.type === 'EmailVerificationCode' ? user.primaryEmail : user.primaryPhone;
      if (!current || record.identifier?.value !== current) {
        throw permissionDenied('a code proves who you are only when it went to your own primary email or phone');
      }
    },

    /**
     * Spends a verified code record as proof that the user holds `identifier` (a new primary email or phone):
     * 400 `verification_record.not_found` unless it is this user's, verified, unexpired, unspent and for exactly
     * that address. Of concurrent uses exactly one wins. `release` gives it back when the change then fails.
     */
    async spendNewIdentifier(userId: string, id: string, identifier: Recipient): Promise<{ release(): Promise<void> }> {
      const to = normalizedRecipient(identifier);
      const record = await find(userId, id);
      if (!record?.verified || record.type !== codeType(to) || record.identifier?.value !== to.value)
        throw recordNotFound();
      if (!(await kv.setIfAbsent(spentKeyOf(id), '1', Math.max(record.expiresAt - Date.now(), 1))))
        throw recordNotFound();
      return { release: () => kv.del(spentKeyOf(id)) };
    },
  };
}
