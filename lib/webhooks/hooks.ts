import type { DocumentStore } from '../ports/documents.ts';
import type { EventName } from '../events/catalogue.ts';
import { findPage, publicShape, type Page, type PageResult, type Stored } from '../data/entity.ts';
import type { HookOrdering } from './entity-order.ts';
import { publicKeyOf, type SignatureScheme } from './signing.ts';

export interface HookConfig {
  url: string;
  headers?: Record<string, string>;
}

/** A hook as the API shows it (Logto's shape); the signing key is shown only on creation and rotation. */
export interface Hook {
  id: string;
  name: string;
  /** Logto's deprecated single-event field, always null: `events` is the subscription. */
  event: null;
  events: EventName[];
  config: HookConfig;
  enabled: boolean;
  /** Why the service disabled the hook by itself (410 Gone, a long failure streak); null otherwise. */
  disabledReason: string | null;
  /** How its deliveries are signed (chosen at creation). */
  signature: SignatureScheme;
  /** `ed25519`: the current key's public key (`whpk_…`), which consumers verify `v1a` signatures with; else null. */
  publicKey: string | null;
  /** `entity`: one delivery at a time per entity, in version order; `none`: all concurrent. */
  ordering: HookOrdering;
  createdAt: number;
  updatedAt: number;
}

/** A key replaced by a rotation, still signing until `until` (epoch ms). */
export interface RetiredKey {
  key: string;
  until: number;
}

/** What is stored: the hook and its secrets. Records older than `disabledReason` or `signature` lack them. */
export interface HookRecord extends Omit<Hook, 'disabledReason' | 'signature' | 'publicKey' | 'ordering'> {
  disabledReason?: string | null;
  signature?: SignatureScheme;
  ordering?: HookOrdering;
  signingKey: string;
  retiredSigningKeys: RetiredKey[];
}

export type HookChanges = Partial<
  Pick<
    HookRecord,
    'name' | 'events' | 'config' | 'enabled' | 'disabledReason' | 'signingKey' | 'retiredSigningKeys' | 'ordering'
  >
>;

const SECRET_FIELDS = ['signingKey', 'retiredSigningKeys'] as const;

export function presentHook(record: HookRecord): Hook {
  const signature = record.signature ?? 'hmac';
  return {
    ...publicShape<Hook>(record, SECRET_FIELDS),
    disabledReason: record.disabledReason ?? null,
    signature,
    publicKey: signature === 'ed25519' ? publicKeyOf(record.signingKey) : null,
    ordering: record.ordering ?? 'none',
  };
}

/** The keys a delivery made at `now` is signed with: the current one first, then those still in grace. */
export function signingKeysAt(record: HookRecord, now: number): string[] {
  return [record.signingKey, ...record.retiredSigningKeys.filter((retired) => retired.until > now).map((r) => r.key)];
}

/** Webhook registrations. Reads that serve deliveries go through the hook cache, not through here. */
export function createHooksRepository(store: DocumentStore) {
  const hooks = store.collection<Stored<HookRecord>>('hooks');
  const record = (doc: Stored<HookRecord>) => publicShape<HookRecord>(doc);

  return {
    async prepare() {
      await hooks.createIndex({ keys: { createdAt: 1 } });
    },
    async insert(hook: HookRecord): Promise<HookRecord> {
      await hooks.insertOne({ ...hook, _id: hook.id });
      return hook;
    },
    async findById(id: string): Promise<HookRecord | null> {
      const doc = await hooks.findOne({ _id: id });
      return doc ? record(doc) : null;
    },
    async all(): Promise<HookRecord[]> {
      return (await hooks.find({}, { sort: { createdAt: 1, _id: 1 } })).map(record);
    },
    async list(page: Page): Promise<PageResult<HookRecord>> {
      const { items, total } = await findPage(hooks, {}, page);
      return { items: items.map(record), total };
    },
    /** Applies `changes`; with `expectedKey`, only while the current signing key is still that one. */
    async update(id: string, changes: HookChanges, expectedKey?: string): Promise<HookRecord | null> {
      const filter = expectedKey === undefined ? { _id: id } : { _id: id, signingKey: expectedKey };
      const doc = await hooks.findOneAndUpdate(
        filter,
        { $set: { ...changes, updatedAt: Date.now() } },
        { returnDocument: 'after' },
      );
      return doc ? record(doc) : null;
    },
    /** Disables the hook with a reason, only if it is enabled: true when this call disabled it. */
    async disableIfEnabled(id: string, reason: string): Promise<boolean> {
      const doc = await hooks.findOneAndUpdate(
        { _id: id, enabled: true },
        { $set: { enabled: false, disabledReason: reason, updatedAt: Date.now() } },
        { returnDocument: 'after' },
      );
      return doc !== null;
    },
    async delete(id: string): Promise<HookRecord | null> {
      const doc = await hooks.findOneAndDelete({ _id: id });
      return doc ? record(doc) : null;
    },
  };
}

export type HooksRepository = ReturnType<typeof createHooksRepository>;
