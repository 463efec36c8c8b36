import { assertAllFound, errors, unique } from '../errors.ts';
import { newId } from '../ids.ts';
import type { OrganizationInvitationsRepository } from './invitations-repository.ts';
import type { OrganizationRolesRepository } from './roles-repository.ts';
import type { OrganizationsRepository } from './repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { Page, PageResult } from '../data/entity.ts';
import type { InvitationFilter, StoredInvitation } from './invitations-repository.ts';
import type { InvitationStatus } from './types.ts';
import { membershipChanged, type MembershipUpdate, type RoleSummary } from './library.ts';
import type { EmitData } from '../events/operation.ts';
import type { Messaging, MessageEventContext } from '../messaging/index.ts';

export interface OrganizationInvitation extends Omit<StoredInvitation, 'organizationRoleIds'> {
  organizationRoles: RoleSummary[];
}

export interface NewInvitation {
  inviterId?: string | null;
  invitee: string;
  organizationId: string;
  expiresAt: number;
  organizationRoleIds?: string[];
}

/** What the inviting request asked to send: Logto's `messagePayload`, its extra fields as template placeholders. */
export interface InvitationMessage {
  link: string;
  variables: Record<string, string>;
  sender: Pick<Messaging, 'sendInvitation'>;
  context?: MessageEventContext;
}

type InvitationsDeps = {
  organizationInvitations: OrganizationInvitationsRepository;
  organizations: OrganizationsRepository;
  organizationRoles: OrganizationRolesRepository;
  users: UsersRepository;
  emit: EmitData;
};

/** A pending invitation past its expiry reads as `Expired`; nothing rewrites it in storage. */
function statusAt(invitation: StoredInvitation, now: number): InvitationStatus {
  return invitation.status === 'Pending' && invitation.expiresAt <= now ? 'Expired' : invitation.status;
}

/** Organization invitations: created for an email address, then accepted by the user who owns it, or revoked. */
export function createOrganizationInvitationsLibrary(deps: InvitationsDeps) {
  const { organizationInvitations: invitations, organizations, organizationRoles, users } = deps;

  async function present(invitation: StoredInvitation): Promise<OrganizationInvitation> {
    const { organizationRoleIds, ...rest } = invitation;
    const roles = await organizationRoles.findByIds(organizationRoleIds);
    return {
      ...rest,
      status: statusAt(invitation, Date.now()),
      organizationRoles: roles.map((role) => ({ id: role.id, name: role.name })),
    };
  }

  async function mustFindStored(id: string): Promise<StoredInvitation> {
    const invitation = await invitations.findById(id);
    if (!invitation) throw errors.notFound('organization invitation', id);
    return invitation;
  }

  async function assertInvitable(input: NewInvitation, now: number): Promise<void> {
    if (input.expiresAt <= now) throw errors.invalidInput('expiresAt must be in the future');
    if (!(await organizations.findById(input.organizationId)))
      throw errors.relationNotFound('organization', input.organizationId);
    if (input.inviterId && !(await users.findById(input.inviterId))) throw errors.notFound('user', input.inviterId);
    const roleIds = [...new Set(input.organizationRoleIds ?? [])];
    const roles = await organizationRoles.findByIds(roleIds);
    assertAllFound('organization role', roleIds, roles, { relation: true });
    if (roles.some((role) => role.type !== 'User')) {
      throw errors.unprocessable(
        'organization.role_type_mismatch',
        'only User organization roles can be given to invitees',
      );
    }
  }

  /** Makes the accepting user a member (unless already one) with the invitation's roles; returns who was added. */
  async function join(invitation: StoredInvitation, userId: string): Promise<string[]> {
    const organizationId = invitation.organizationId;
    const added = await organizations.users.add({ organizationId }, [userId]);
    const roles = await organizationRoles.findByIds(invitation.organizationRoleIds);
    await organizations.userRoles.add(
      { organizationId, userId },
      roles.map((role) => role.id),
    );
    return added;
  }

  /** Emails the invitee the OrganizationInvitation template, naming the organization and the inviter. */
  async function send(invitation: StoredInvitation, message: InvitationMessage): Promise<void> {
    const organization = await organizations.findById(invitation.organizationId);
    if (!organization) throw errors.notFound('organization', invitation.organizationId);
    const inviter = invitation.inviterId ? await users.findById(invitation.inviterId) : null;
    await message.sender.sendInvitation({
      to: invitation.invitee,
      link: message.link,
      organizationName: organization.name,
      inviterName: inviter ? (inviter.name ?? inviter.username) : null,
      variables: message.variables,
      context: message.context,
    });
  }

  return {
    /**
     * Creates a pending invitation and, with a message, emails it; an invitation whose email could not go out
     * (rate limit, connector failure) is not kept, as in Logto.
     */
    async create(input: NewInvitation, message?: InvitationMessage): Promise<OrganizationInvitation> {
      const now = Date.now();
      await assertInvitable(input, now);
      const invitee = input.invitee.toLowerCase();
      const account = await users.findWithSecrets({ primaryEmail: invitee });
      if (account && (await organizations.users.has({ organizationId: input.organizationId }, account.user.id))) {
        throw errors.unprocessable('request.invalid_input', 'the invitee is already a member of the organization');
      }
      if (await invitations.countLivePending(input.organizationId, invitee, now)) {
        throw errors.duplicate('organization invitation', 'invitee');
      }
      const created = await unique('organization invitation', 'invitee', () =>
        invitations.insertPending(
          {
            id: newId(),
            inviterId: input.inviterId ?? null,
            invitee,
            acceptedUserId: null,
            organizationId: input.organizationId,
            status: 'Pending',
            organizationRoleIds: [...new Set(input.organizationRoleIds ?? [])],
            createdAt: now,
            updatedAt: now,
            expiresAt: input.expiresAt,
          },
          now,
        ),
      );
      if (message) {
        try {
          await send(created, message);
        } catch (error) {
          await invitations.delete(created.id);
          throw error;
        }
      }
      return present(created);
    },
    /** Emails a pending invitation again; one that was accepted, revoked or has expired is not worth a message. */
    async resend(id: string, message: InvitationMessage): Promise<void> {
      const invitation = await mustFindStored(id);
      const status = statusAt(invitation, Date.now());
      if (status !== 'Pending') {
        throw errors.unprocessable(
          'organization_invitation.not_pending',
          'only a pending, unexpired invitation can be sent',
          { status },
        );
      }
      await send(invitation, message);
    },
    async list(page: Page, filter: InvitationFilter): Promise<PageResult<OrganizationInvitation>> {
      const { items, total } = await invitations.list(page, { ...filter, invitee: filter.invitee?.toLowerCase() });
      return { items: await Promise.all(items.map(present)), total };
    },
    get: async (id: string) => present(await mustFindStored(id)),
    async delete(id: string): Promise<OrganizationInvitation> {
      const deleted = await invitations.delete(id);
      if (!deleted) throw errors.notFound('organization invitation', id);
      return present(deleted);
    },
    /**
     * Accepts or revokes a pending invitation. Accepting requires the user whose primary email is the
     * invitee's; the membership change is empty when that user already was a member (or on revocation).
     */
    async settle(
      id: string,
      status: 'Accepted' | 'Revoked',
      acceptedUserId?: string,
    ): Promise<{
      invitation: OrganizationInvitation;
      membership: MembershipUpdate;
    }> {
      const now = Date.now();
      const invitation = await mustFindStored(id);
      const organization = await organizations.findById(invitation.organizationId);
      if (!organization) throw errors.notFound('organization', invitation.organizationId);
      // Logto's code for both refusals below: the invitation or the user does not allow it.
      const notPending = () =>
        errors.unprocessable('request.invalid_input', 'only a pending, unexpired invitation can change status', {
          status: statusAt(invitation, now),
        });
      if (statusAt(invitation, now) !== 'Pending') throw notPending();
      if (status === 'Accepted') {
        if (!acceptedUserId) throw errors.invalidInput('acceptedUserId is required to accept an invitation');
        const user = await users.findById(acceptedUserId);
        if (!user) throw errors.missing('entity.not_found', 'user', acceptedUserId);
        if (user.primaryEmail?.toLowerCase() !== invitation.invitee) {
          throw errors.unprocessable('request.invalid_input', "the user's primary email is not the invitee's");
        }
      }
      const accepter = status === 'Accepted' ? acceptedUserId! : null;
      const settled = await invitations.settle(id, { status, acceptedUserId: accepter }, now);
      if (!settled) throw notPending();
      const addedUserIds = accepter ? await join(settled, accepter) : [];
      return {
        invitation: await present(settled),
        membership: membershipChanged(deps.emit, organization, { addedUserIds }),
      };
    },
  };
}
