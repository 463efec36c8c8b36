import { expect } from 'chai';
import { EventBus, type IdentityEvent } from '../../../lib/events/bus.ts';
import type { EmitData } from '../../../lib/events/operation.ts';
import type { RouteEventMap } from '../../../lib/events/route-events.ts';
import type { ManagementContext } from '../../../lib/events/payloads.ts';
import type { Scope } from '../../../lib/resources/repository.ts';
import type { User } from '../../../lib/users/repository.ts';
import { withFakeClock } from '../../support/clock.ts';

const USER: User = {
  id: 'u1',
  username: 'ada',
  primaryEmail: null,
  primaryPhone: null,
  name: null,
  avatar: null,
  customData: {},
  identities: {},
  profile: {},
  applicationId: null,
  isSuspended: false,
  hasPassword: false,
  lastSignInAt: null,
  createdAt: 1,
  updatedAt: 1,
};
const SCOPE: Scope = { id: 's1', resourceId: 'r1', name: 'read', description: null, createdAt: 1 };
const MANAGEMENT: ManagementContext = {
  ip: '203.0.113.7',
  userAgent: 'crm/2.1',
  path: '/roles/r1/scopes',
  method: 'POST',
  status: 201,
  params: { id: 'r1' },
  matchedRoute: '/roles/:id/scopes',
};

/** A bus and what its listener received, as the JSON webhook consumers get (key order included). */
function recordingBus(): { bus: EventBus; received: () => string[] } {
  const bus = new EventBus();
  const events: IdentityEvent[] = [];
  bus.subscribe(async (published) => {
    events.push(...published);
  });
  return { bus, received: () => events.map((event) => JSON.stringify(event)) };
}

describe('event bus: emit stamps time and context', () => {
  it("builds an interaction event in Logto's field order, with the time it was emitted", () =>
    withFakeClock(async (clock) => {
      const { bus, received } = recordingBus();
      clock.advance(1234);
      const now = new Date().toISOString();
      await bus.emit(
        'PostSignIn',
        { userId: 'u1', user: USER, application: undefined },
        {
          sessionId: 'sess',
          userIp: '198.51.100.4',
          userAgent: 'Mozilla/5.0',
        },
      );
      expect(received()).to.deep.equal([
        JSON.stringify({
          event: 'PostSignIn',
          createdAt: now,
          interactionEvent: 'SignIn',
          sessionId: 'sess',
          userId: 'u1',
          userIp: '198.51.100.4',
          userAgent: 'Mozilla/5.0',
          user: USER,
        }),
      ]);
    }));

  it('emits the data events of one request as one batch: one time, the context, extra fields, then data', () =>
    withFakeClock(async () => {
      const { bus, received } = recordingBus();
      let batches = 0;
      bus.subscribe(async () => {
        batches += 1;
      });
      await bus.emitAll(MANAGEMENT, [
        { event: 'Role.Scopes.Updated', payload: { roleId: 'r1', data: [SCOPE] } },
        { event: 'User.Data.Updated', payload: { data: USER } },
      ]);
      const createdAt = new Date().toISOString();
      expect(batches).to.equal(1);
      expect(received()).to.deep.equal([
        JSON.stringify({ event: 'Role.Scopes.Updated', createdAt, ...MANAGEMENT, roleId: 'r1', data: [SCOPE] }),
        JSON.stringify({ event: 'User.Data.Updated', createdAt, ...MANAGEMENT, data: USER }),
      ]);
    }));

  it('gives exception events their own fields, after what is known of their request', () =>
    withFakeClock(async () => {
      const { bus, received } = recordingBus();
      const createdAt = new Date().toISOString();
      await bus.emit('Identifier.Lockout', { type: 'username', value: 'ada' });
      await bus.emit(
        'Message.RateLimited',
        { action: 'SignIn', recipient: 'ada@example.com' },
        {
          ip: '198.51.100.4',
          userAgent: undefined,
          interactionEvent: 'SignIn',
        },
      );
      expect(received()).to.deep.equal([
        JSON.stringify({ event: 'Identifier.Lockout', createdAt, type: 'username', value: 'ada' }),
        JSON.stringify({
          event: 'Message.RateLimited',
          createdAt,
          ip: '198.51.100.4',
          interactionEvent: 'SignIn',
          action: 'SignIn',
          recipient: 'ada@example.com',
        }),
      ]);
    }));

  it('publishes nothing for an empty batch', async () => {
    const { bus, received } = recordingBus();
    await bus.emitAll(MANAGEMENT, []);
    expect(received()).to.deep.equal([]);
  });
});

/**
 * Payload shapes are checked by the compiler (`npm test` type-checks first): each line below must stay an
 * error, or the build fails on an unused `@ts-expect-error`.
 */
// biome-ignore lint/suspicious/noExportsInTest: exported so the compiler checks it without a caller; it never runs.
export function payloadsThatDoNotCompile(bus: EventBus, emit: EmitData): unknown[] {
  const maps: RouteEventMap[] = [
    // @ts-expect-error no route publishes an interaction event
    { 'POST /users': [{ event: 'PostSignIn' }] },
  ];
  return [
    maps,
    // @ts-expect-error Role.Scopes.Updated needs the role's id beside its scopes
    emit('Role.Scopes.Updated', { data: [SCOPE] }),
    // @ts-expect-error the role's id is a top-level field, not nested under `fields`
    emit('Role.Scopes.Updated', { data: [SCOPE], fields: { roleId: 'r1' } }),
    // @ts-expect-error User.Data.Updated carries a user, not scopes
    emit('User.Data.Updated', { data: [SCOPE] }),
    // @ts-expect-error a data event happens in a request: its context is required
    bus.emit('User.Created', { data: USER }),
    // @ts-expect-error Grant.LimitExceeded states how many grants were allowed
    bus.emit('Grant.LimitExceeded', { userId: 'u1', applicationId: 'a1', revokedGrantIds: [] }),
  ];
}
