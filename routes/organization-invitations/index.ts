import type { Context } from 'koa';
import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import type { InvitationMessage } from '../../lib/organizations/invitations.ts';
import type { MessageEventContext } from '../../lib/messaging/index.ts';
import {
  createInvitationBody,
  invitation,
  invitationStatusBody,
  listInvitationsQuery,
  messagePayload,
} from './schemas.ts';

const tag = 'Organization invitations';
const byId = z.object({ id: idParam });

export function organizationInvitationRoutes(
  api: ApiRouterDeps,
  core: Pick<ServiceCore, 'messaging' | 'organizations'>,
): void {
  const library = core.organizations.invitations;
  const message = ({ link, ...rest }: z.infer<typeof messagePayload>, koa: Context): InvitationMessage => ({
    link,
    variables: Object.fromEntries(Object.entries(rest).map(([name, value]) => [name, String(value)])),
    sender: core.messaging,
    context: requestContext(koa),
  });

  declare(api, {
    method: 'get',
    path: '/organization-invitations',
    tag,
    summary: 'List organization invitations',
    query: listInvitationsQuery,
    pagination: 'optional',
    response: z.array(invitation),
    async handler({ query, page, paged }) {
      const { page: _page, page_size: _pageSize, ...filter } = query;
      return paged(await library.list(page, filter));
    },
  });

  declare(api, {
    method: 'post',
    path: '/organization-invitations',
    tag,
    summary: 'Invite an email address into an organization',
    body: createInvitationBody,
    status: 201,
    response: invitation,
    handler: ({ body: { messagePayload: payload, ...body }, koa }) =>
      library.create(body, payload === false ? undefined : message(payload, koa)),
  });

  declare(api, {
    method: 'post',
    path: '/organization-invitations/:id/message',
    tag,
    summary: 'Email a pending invitation to its invitee again (body: the message payload)',
    params: byId,
    body: messagePayload,
    status: 204,
    async handler({ params, body, koa }) {
      await library.resend(params.id, message(body, koa));
    },
  });

  declare(api, {
    method: 'get',
    path: '/organization-invitations/:id',
    tag,
    summary: 'Get an organization invitation',
    params: byId,
    response: invitation,
    handler: ({ params }) => library.get(params.id),
  });

  declare(api, {
    method: 'delete',
    path: '/organization-invitations/:id',
    tag,
    summary: 'Delete an organization invitation',
    params: byId,
    status: 204,
    async handler({ params }) {
      await library.delete(params.id);
    },
  });

  declare(api, {
    method: 'put',
    path: '/organization-invitations/:id/status',
    tag,
    summary: 'Accept or revoke a pending invitation; accepting makes the user a member',
    params: byId,
    body: invitationStatusBody,
    response: invitation,
    async handler({ params, body }) {
      return (await library.settle(params.id, body.status, body.acceptedUserId)).invitation;
    },
  });
}

/** The request context Message.RateLimited carries when an invitation was refused. */
function requestContext(koa: Context): MessageEventContext {
  const userAgent = koa.get('user-agent');
  return userAgent ? { ip: koa.ip, userAgent } : { ip: koa.ip };
}
