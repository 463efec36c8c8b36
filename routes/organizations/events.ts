import type { EventState } from '../../lib/events/route-events.ts';
import type { MembershipUpdate } from '../../lib/organizations/library.ts';

/**
 * Shapes the request's Organization.Membership.Updated: `data` is the organization, `organizationId` and
 * the non-empty delta lists are top-level fields. A request that changed nothing announces nothing.
 */
export function announceMembership(events: EventState, { organization, changes }: MembershipUpdate): void {
  const delta = Object.fromEntries(Object.entries(changes).filter(([, ids]) => ids.length > 0));
  events.events = {
    ...events.events,
    'Organization.Membership.Updated':
      Object.keys(delta).length === 0 ? false : { data: organization, organizationId: organization.id, ...delta },
  };
}
