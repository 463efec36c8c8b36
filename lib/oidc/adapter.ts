import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DocumentCollection, DocumentStore } from '../ports/documents.ts';

/**
 * node-oidc-provider storage on the document-store port: one collection per model, a TTL index on
 * `expiresAt`, and lookups by grant id, user code and interaction uid. Expiry is also checked on read
 * because MongoDB removes expired documents lazily.
 */
interface StoredModel {
  _id: string;
  payload: AdapterPayload;
  expiresAt?: Date;
  grantId?: string;
  userCode?: string;
  uid?: string;
  createdAt?: Date;
}

const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

export type ClientLoader = (clientId: string) => Promise<AdapterPayload | undefined>;

export async function prepareOidcCollections(store: DocumentStore, models: string[]): Promise<void> {
  for (const model of models) {
    const collection = store.collection(collectionName(model));
    await collection.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
    if (GRANTABLE.has(model)) await collection.createIndex({ keys: { grantId: 1 } });
    if (model === 'DeviceCode') await collection.createIndex({ keys: { userCode: 1 }, unique: true, sparse: true });
    if (model === 'Session') await collection.createIndex({ keys: { uid: 1 }, unique: true, sparse: true });
  }
}

export const OIDC_MODELS = [
  'Session',
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'ClientCredentials',
  'InitialAccessToken',
  'RegistrationAccessToken',
  'Interaction',
  'ReplayDetection',
  'PushedAuthorizationRequest',
  'Grant',
  'BackchannelAuthenticationRequest',
];

/** The document collection that holds one oidc-provider model. */
export function collectionName(model: string): string {
  return `oidc_${model}`;
}

function isLive(doc: StoredModel | null): doc is StoredModel {
  return doc !== null && (doc.expiresAt === undefined || doc.expiresAt.getTime() > Date.now());
}

class DocumentAdapter implements Adapter {
  readonly #collection: DocumentCollection<StoredModel>;

  constructor(collection: DocumentCollection<StoredModel>) {
    this.#collection = collection;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const set: Record<string, unknown> = { payload };
    const unset: Record<string, ''> = {};
    const optional: Record<string, unknown> = {
      expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : undefined,
      grantId: payload.grantId,
      userCode: payload.userCode,
      uid: payload.uid,
    };
    for (const [field, value] of Object.entries(optional)) {
      if (value) set[field] = value;
      else unset[field] = '';
    }
    // `createdAt` survives re-saves: it orders a user's grants oldest first (maxAllowedGrants).
    const update: Record<string, unknown> = { $set: set, $setOnInsert: { createdAt: new Date() } };
    if (Object.keys(unset).length) update.$unset = unset;
    await this.#collection.updateOne({ _id: id }, update, { upsert: true });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.#payload(await this.#collection.findOne({ _id: id }));
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.#payload(await this.#collection.findOne({ userCode }));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.#payload(await this.#collection.findOne({ uid }));
  }

  async consume(id: string): Promise<void> {
    await this.#collection.updateOne({ _id: id }, { $set: { 'payload.consumed': Math.floor(Date.now() / 1000) } });
  }

  async destroy(id: string): Promise<void> {
    await this.#collection.deleteOne({ _id: id });
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.#collection.deleteMany({ grantId });
  }

  #payload(doc: StoredModel | null): AdapterPayload | undefined {
    return isLive(doc) ? doc.payload : undefined;
  }
}

/** Clients are the service's applications: read-only through this adapter. */
class ApplicationClientAdapter implements Adapter {
  readonly #load: ClientLoader;
  constructor(load: ClientLoader) {
    this.#load = load;
  }
  find(id: string) {
    return this.#load(id);
  }
  async upsert(): Promise<void> {
    throw new Error('clients are managed through /api/applications');
  }
  async findByUserCode() {
    return undefined;
  }
  async findByUid() {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

export function createAdapterFactory(store: DocumentStore, loadClient: ClientLoader): (model: string) => Adapter {
  return (model) =>
    model === 'Client'
      ? new ApplicationClientAdapter(loadClient)
      : new DocumentAdapter(store.collection<StoredModel>(collectionName(model)));
}
