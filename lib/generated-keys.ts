import { randomBytes } from 'node:crypto';
import { DuplicateKeyError, type DocumentStore } from './ports/documents.ts';
import type { Settings } from './settings.ts';

/**
 * The cookie keys when COOKIE_KEYS is unset (and with them the keys sealing MFA and connector secrets, unless
 * MFA_SECRET_KEYS is set): generated once and kept in the document store, like generated signing keys, so that on a
 * durable store sessions, cookies and sealed secrets outlive a restart, and every process sharing the store signs and
 * seals with the same keys. Of processes starting together, the first to store them wins.
 */
export async function settleGeneratedKeys(settings: Settings, store: DocumentStore): Promise<void> {
  if (settings.COOKIE_KEYS) return;
  const kept = store.collection<{ _id: string; keys: string[] }>('generated_keys');
  try {
    await kept.updateOne(
      { _id: 'cookie-keys' },
      { $setOnInsert: { keys: [randomBytes(32).toString('base64url')] } },
      { upsert: true },
    );
  } catch (error) {
    // Another process stored them between this one's look and its insert.
    if (!(error instanceof DuplicateKeyError)) throw error;
  }
  const keys = (await kept.findOne({ _id: 'cookie-keys' }))!.keys;
  settings.cookieKeys = keys;
  if (!settings.MFA_SECRET_KEYS) settings.mfaSecretKeys = keys;
}
