import { z } from 'zod';
import { pagination } from '../../lib/http/api.ts';
import { INVITATION_STATUSES } from '../../lib/organizations/invitations-repository.ts';
import { email } from '../users/schemas.ts';
import { roleSummary } from '../organizations/schemas.ts';

const id = z.string().min(1).max(128);

export const invitation = z.object({
  id: z.string(),
  inviterId: z.string().nullable(),
  invitee: z.string(),
  acceptedUserId: z.string().nullable(),
  organizationId: z.string(),
  status: z.enum(INVITATION_STATUSES),
  createdAt: z.number(),
  updatedAt: z.number(),
  expiresAt: z.number(),
  organizationRoles: z.array(roleSummary),
});

export const createInvitationBody = z.object({
  inviterId: id.nullish(),
  invitee: email,
  organizationId: id,
  expiresAt: z.number().int().positive().describe('Epoch milliseconds, in the future.'),
  organizationRoleIds: z.array(id).max(100).optional(),
}).strict();

export const invitationStatusBody = z.object({
  status: z.enum(['Accepted', 'Revoked']),
  acceptedUserId: id.optional().describe('Required to accept: the user whose primary email is the invitee.'),
}).strict().refine((body) => body.status !== 'Accepted' || body.acceptedUserId !== undefined, {
  message: 'acceptedUserId is required to accept an invitation', path: ['acceptedUserId'],
});

export const listInvitationsQuery = pagination.extend({
  organizationId: id.optional(),
  inviterId: id.optional(),
  invitee: z.string().max(320).optional(),
});
