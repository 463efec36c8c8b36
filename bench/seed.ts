import type { Doc, DocumentStore } from '../lib/ports/documents.ts';

/** How much the scale bench stores before it measures. */
export interface ScaleCounts {
  users: number;
  roles: number;
  organizations: number;
  membersPerOrganization: number;
  hooks: number;
  deliveryLogs: number;
  auditRecords: number;
}

export const SCALE: ScaleCounts = {
  users: 100_000,
  roles: 200,
  organizations: 10_000,
  membersPerOrganization: 5,
  hooks: 20,
  deliveryLogs: 1_000_000,
  auditRecords: 500_000,
};

/** Documents per write: one group commit on SQLite, one pass of the engine's checks in memory. */
const BATCH = 5000;
const DAY_MS = 86_400_000;
/** The service's default retention of delivery logs (WEBHOOK_LOG_RETENTION_DAYS). */
const RETENTION_MS = 14 * DAY_MS;
/** Logs and audit records are spread over this much of the past, so none expires during a run. */
const HISTORY_MS = 13 * DAY_MS;

/** Names the seeded documents follow, so that the bench can aim its requests at them. */
export const seeded = {
  userId: (n: number) => `su${n}`,
  organizationId: (n: number) => `so${n}`,
  hookId: (n: number) => `sh${n}`,
  roleId: (n: number) => `sr${n}`,
};

export interface SeedSummary {
  counts: ScaleCounts;
  seconds: number;
  /** Documents written, all collections together. */
  documents: number;
}

/**
 * Writes the scale bench's data into a service's document store, as the repositories store it (the same collections,
 * fields and ids; the indexes are the service's own, made at its start), thousands of documents per write. Every user
 * has an email, a name and custom data and holds one of the roles; every organization has its members; delivery logs
 * and impersonation audit records are spread over the last 13 days, so that none expires while the bench runs. Stops
 * with an error once `deadlineMs` has passed: the run is bounded in time.
 */
export async function seedStore(store: DocumentStore, counts: ScaleCounts, deadlineMs: number): Promise<SeedSummary> {
  const started = performance.now();
  const now = Date.now();
  let documents = 0;
  const write = async (collection: string, total: number, make: (n: number) => Doc) => {
    const target = store.collection(collection);
    for (let first = 0; first < total; first += BATCH) {
      if (performance.now() - started > deadlineMs)
        throw new Error(`seeding took more than ${deadlineMs / 1000} s (at ${collection})`);
      await target.insertMany(Array.from({ length: Math.min(BATCH, total - first) }, (_, i) => make(first + i)));
      documents += Math.min(BATCH, total - first);
    }
  };

  await write('roles', counts.roles, (n) => ({
    _id: seeded.roleId(n),
    id: seeded.roleId(n),
    name: `seeded-role-${n}`,
    description: `Seeded role ${n}`,
    type: 'User',
    isDefault: false,
    createdAt: now - DAY_MS + n,
  }));
  await write('users', counts.users, (n) => {
    const id = seeded.userId(n);
    return {
      _id: id,
      id,
      username: `user_${n}`,
      primaryEmail: `user${n}@example.com`,
      name: `User ${n}`,
      avatar: null,
      customData: {
        plan: n % 10 === 0 ? 'enterprise' : 'free',
        team: `team-${n % 500}`,
        onboarded: n % 3 !== 0,
        seats: n % 50,
      },
      identities: {},
      profile: {},
      applicationId: null,
      isSuspended: false,
      hasPassword: false,
      lastSignInAt: null,
      createdAt: now - HISTORY_MS + n,
      updatedAt: now - HISTORY_MS + n,
    };
  });
  await write('users_roles', counts.users, (n) => {
    const userId = seeded.userId(n);
    const roleId = seeded.roleId(n % counts.roles);
    return { _id: JSON.stringify([userId, roleId]), userId, roleId, createdAt: now - HISTORY_MS + n };
  });
  await write('organizations', counts.organizations, (n) => ({
    _id: seeded.organizationId(n),
    id: seeded.organizationId(n),
    name: `Organization ${n}`,
    description: null,
    customData: {},
    isMfaRequired: false,
    createdAt: now - HISTORY_MS + n,
  }));
  const members = counts.organizations * counts.membersPerOrganization;
  await write('organizations_users', members, (n) => {
    const organizationId = seeded.organizationId(Math.floor(n / counts.membersPerOrganization));
    // Members spread over all users: organization k holds users k·5 … k·5+4 (modulo the users).
    const userId = seeded.userId(n % counts.users);
    return { _id: JSON.stringify([organizationId, userId]), organizationId, userId, createdAt: now - HISTORY_MS + n };
  });
  await write('hooks', counts.hooks, (n) => ({
    _id: seeded.hookId(n),
    id: seeded.hookId(n),
    name: `seeded-hook-${n}`,
    event: null,
    events: ['User.Deleted'],
    // Disabled: the seeded hooks only hold history, they never deliver.
    config: { url: `https://hooks.example.com/${n}` },
    enabled: false,
    disabledReason: null,
    signingKey: `seeded-signing-key-${n}`,
    retiredSigningKeys: [],
    createdAt: now - HISTORY_MS + n,
    updatedAt: now - HISTORY_MS + n,
  }));
  const logSpacing = HISTORY_MS / Math.max(1, counts.deliveryLogs);
  await write('webhook_logs', counts.deliveryLogs, (n) => {
    const id = `slog${n}`;
    const createdAt = Math.round(now - n * logSpacing);
    const succeeded = n % 4 !== 0;
    return {
      _id: id,
      id,
      hookId: seeded.hookId(n % counts.hooks),
      deliveryId: `sdlv${Math.floor(n / 2)}`,
      event: 'User.Created',
      attempt: 1 + (n % 2),
      succeeded,
      responseStatus: succeeded ? 200 : 503,
      responseBody: succeeded ? 'ok' : 'unavailable',
      error: null,
      latencyMs: 5 + (n % 40),
      nextRetryAt: null,
      createdAt,
      expiresAt: new Date(Math.ceil((createdAt + RETENTION_MS) / 1000) * 1000),
    };
  });
  const auditSpacing = HISTORY_MS / Math.max(1, counts.auditRecords);
  await write('impersonation_audit', counts.auditRecords, (n) => {
    const id = `saud${n}`;
    const created = n % 2 === 0;
    return {
      _id: id,
      id,
      type: created ? 'SubjectToken.Created' : 'TokenExchange.Succeeded',
      subjectTokenRef: `sref${Math.floor(n / 2)}`,
      userId: seeded.userId(Math.floor(n / 2) % counts.users),
      createdBy: 'seeded-admin',
      applicationId: created ? null : 'seeded-app',
      actorUserId: null,
      resource: 'https://api.example.com',
      scope: 'read',
      error: null,
      errorDescription: null,
      createdAt: Math.round(now - n * auditSpacing),
    };
  });
  return { counts, seconds: Number(((performance.now() - started) / 1000).toFixed(1)), documents };
}
