import { expect } from 'chai';
import { craftedEvent } from '../../support/events.ts';
import { ALL_EVENTS, DATA_EVENTS, IMPERSONATION_EVENTS, INTERACTION_EVENTS } from '../../../lib/events/catalogue.ts';
import { deliveryBody, eventText, newDeliveryId, storedJob } from '../../../lib/webhooks/payload.ts';
import { sampleEvent } from '../../../lib/webhooks/samples.ts';
import { timeOrderedId } from '../../../lib/ids.ts';

/** What the event's deliveries carry, read back. */
const eventBody = (...event: Parameters<typeof eventText>) =>
  JSON.parse(eventText(...event)) as Record<string, unknown>;

describe('webhook payloads', () => {
  it('drop every secret-looking field, at any depth, and keep look-alikes', () => {
    const body = eventBody(
      craftedEvent('User.Data.Updated', {
        createdAt: '2025-01-01T00:00:00.000Z',
        data: {
          password: 'p',
          passwordDigest: 'd',
          hasPassword: true,
          secret: 's',
          clientSecret: 'c',
          totpSecret: 't',
          accessToken: 'a',
          refresh_token: 'r',
          subjectToken: 'st',
          signingKey: 'k',
          privateKey: 'pk',
          code: '123456',
          accessTokenTtl: 3600,
          postalCode: '75001',
          tokenExchange: { allowed: true },
          nested: [{ idToken: 'i', name: 'kept' }],
        },
      }),
    );
    expect(body).to.deep.equal({
      event: 'User.Data.Updated',
      createdAt: '2025-01-01T00:00:00.000Z',
      data: {
        hasPassword: true,
        accessTokenTtl: 3600,
        postalCode: '75001',
        tokenExchange: { allowed: true },
        nested: [{ name: 'kept' }],
      },
    });
  });

  it('are plain JSON whatever the producer put in, so both queue backends carry the same bytes', () => {
    const body = eventBody(
      craftedEvent('User.Created', { createdAt: 'now', data: { at: new Date(0), missing: undefined } }),
    );
    expect(body).to.deep.equal({ event: 'User.Created', createdAt: 'now', data: { at: '1970-01-01T00:00:00.000Z' } });
  });

  it("add the receiving hook's id last", () => {
    expect(JSON.parse(deliveryBody('{"event":"User.Created","data":{"hookId":"x"}}', 'hook-1'))).to.deep.equal({
      event: 'User.Created',
      data: { hookId: 'x' },
      hookId: 'hook-1',
    });
    expect(deliveryBody('{"event":"User.Created"}', 'hook-1')).to.equal('{"event":"User.Created","hookId":"hook-1"}');
    expect(deliveryBody('{}', 'a"b')).to.equal('{"hookId":"a\\"b"}');
  });

  it('read a job stored with its payload as an object (earlier versions) as the same text', () => {
    const job = { deliveryId: 'd', hookId: 'h', event: 'User.Created', createdAt: 1 };
    expect(storedJob({ ...job, payload: { event: 'User.Created', data: { a: 1 }, hookId: 'h' } })).to.deep.equal({
      ...job,
      payload: '{"event":"User.Created","data":{"a":1}}',
    });
    expect(storedJob({ ...job, payload: '{}' })).to.deep.equal({ ...job, payload: '{}' });
  });

  it('get delivery ids BullMQ accepts as job ids', () => {
    const id = newDeliveryId();
    expect(id).to.match(/^dlv_[a-z0-9]{21}$/);
    expect(id).to.not.include(':');
    expect(newDeliveryId()).to.not.equal(id);
  });

  it('get attempt log ids of the usual shape that sort in the order they were made', () => {
    const first = timeOrderedId();
    // The next millisecond: ids of one millisecond are in no particular order.
    const madeAt = Date.now();
    for (let spins = 0; Date.now() <= madeAt && spins < 1e8; spins += 1);
    const ids = [first, ...Array.from({ length: 100 }, () => timeOrderedId())];
    for (const id of ids) expect(id).to.match(/^[0-9a-z]{21}$/);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids.slice(1).every((id) => id > first)).to.equal(true);
  });

  describe('samples for the test endpoint', () => {
    for (const event of ALL_EVENTS) {
      it(`exist for ${event}`, () => {
        const sample = sampleEvent(event, new Date(0));
        expect(sample).to.include({ event, createdAt: '1970-01-01T00:00:00.000Z' });
        expect(eventBody(sample)).to.deep.equal(JSON.parse(JSON.stringify(sample)));
        if ((INTERACTION_EVENTS as readonly string[]).includes(event)) {
          expect(sample).to.include.keys('interactionEvent', 'user', 'application');
        } else if ((DATA_EVENTS as readonly string[]).includes(event)) {
          expect(sample).to.include.keys('path', 'method', 'status', 'params', 'matchedRoute', 'data');
        } else if ((IMPERSONATION_EVENTS as readonly string[]).includes(event)) {
          expect(sample).to.include.keys('impersonationId', 'userId', 'applicationId', 'expiresAt');
        }
      });
    }
  });
});
