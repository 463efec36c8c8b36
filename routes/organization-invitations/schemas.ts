import { z } from 'zod';
import { optionalPagination } from '../../lib/http/api.ts';
import { INVITATION_STATUSES } from '../../lib/organizations/types.ts';
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

const PLACEHOLDER_NAME = /^[A-Za-z_][\w.-]{0,63}$/;
const MAX_PAYLOAD_FIELDS = 32;

/**
 * Logto's `messagePayload`: `link` goes into `{{link}}` of the OrganizationInvitation template; every other field
 * (`locale` and `uiLocales` included) is a placeholder of the same name, so custom templates can use them.
 */
export const messagePayload = z
  .object({
    link: z
      .url({ protocol: /^https?$/, error: 'an absolute http(s) URL' })
      .max(2048)
      .describe('The invitation link the invitee follows (`{{link}}`).'),
  })
  .catchall(z.union([z.string().max(1000), z.number(), z.boolean()]))
  .superRefine((payload, ctx) => {
    const names = Object.keys(payload);
    if (names.length > MAX_PAYLOAD_FIELDS)
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_PAYLOAD_FIELDS} fields` });
    for (const name of names.filter((key) => !PLACEHOLDER_NAME.test(key))) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message:
          'field names are template placeholders: a letter or "_", then letters, digits, "_", "." or "-" (64 at most)',
      });
    }
  })
  .describe('Values for the OrganizationInvitation email template: `link` and any other placeholder (`{{name}}`).');

export const createInvitationBody = z
  .object({
    inviterId: id.nullish(),
    invitee: email,
    organizationId: id,
    expiresAt: z.number().int().positive().describe('Epoch milliseconds, in the future.'),
    organizationRoleIds: z.array(id).max(100).optional(),
    messagePayload: z
      .union([z.literal(false), messagePayload])
      .default(false)
      .describe(
        '`false` (the default) sends nothing; an object emails the invitee the OrganizationInvitation template.',
      ),
  })
  .strict();

export const invitationStatusBody = z
  .object({
    status: z.enum(['Accepted', 'Revoked']),
    acceptedUserId: id
      .optional()
      .describe(
        'Required to accept: the user whose primary email is the invitee ' +
          '(400 without it, once the invitation is known to be pending).',
      ),
  })
  .strict();

export const listInvitationsQuery = optionalPagination.extend({
  organizationId: id.optional(),
  inviterId: id.optional(),
  invitee: z.string().max(320).optional(),
});
