import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { SelectField, TextField } from '../../components/field.tsx';
import { Pager, Table } from '../../components/table.tsx';
import { userRoles, type OrganizationRole } from './types.ts';

interface Invitation {
  id: string;
  invitee: string;
  status: 'Pending' | 'Accepted' | 'Expired' | 'Revoked';
  expiresAt: number;
  createdAt: number;
  organizationRoles: Array<{ id: string; name: string }>;
}

const PAGE_SIZE = 20;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Invitations into the organization: invite an email address (optionally emailing it a link), revoke one. */
export function InvitationsSection(props: { organizationId: string; roles: OrganizationRole[] | undefined }) {
  const [page, setPage] = useState(1);
  const invitations = useLoad(
    () =>
      apiList<Invitation>('/organization-invitations', {
        organizationId: props.organizationId,
        page,
        page_size: PAGE_SIZE,
      }),
    [props.organizationId, page],
  );
  const [invitee, setInvitee] = useState('');
  const [days, setDays] = useState('7');
  const [role, setRole] = useState('');
  const [link, setLink] = useState('');
  const [sent, setSent] = useState<string>();
  const invite = useAction();
  const revoke = useAction();
  const fields = ['invitee', 'expiresAt', 'organizationRoleIds', 'messagePayload'];
  return (
    <Section
      title="Invitations"
      description="People invited by email: they join with the roles chosen here when they accept."
    >
      {invitations.error ? (
        <ErrorText error={invitations.error} />
      ) : !invitations.data ? (
        <Loading what="invitations" />
      ) : (
        <>
          <Table
            caption="Invitations into this organization"
            captionHidden
            rows={invitations.data.items}
            rowKey={(invitation) => invitation.id}
            empty="No invitations."
            columns={[
              { header: 'Invitee', cell: (invitation) => invitation.invitee },
              { header: 'Status', cell: (invitation) => invitation.status },
              {
                header: 'Roles',
                cell: (invitation) => invitation.organizationRoles.map((held) => held.name).join(', ') || '—',
              },
              { header: 'Expires', cell: (invitation) => new Date(invitation.expiresAt).toLocaleString() },
              {
                header: 'Actions',
                numeric: true,
                cell: (invitation) =>
                  invitation.status === 'Pending' && (
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`Revoke the invitation of ${invitation.invitee}`}
                      disabled={revoke.pending}
                      onClick={async () => {
                        await revoke.run(() =>
                          api('PUT', `/organization-invitations/${encodeURIComponent(invitation.id)}/status`, {
                            body: { status: 'Revoked' },
                          }),
                        );
                        invitations.reload();
                      }}
                    >
                      Revoke
                    </button>
                  ),
              },
            ]}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={invitations.data.total} onPage={setPage} />
        </>
      )}
      <ErrorText error={revoke.error} />
      <form
        class="inline-form"
        onSubmit={async (event) => {
          event.preventDefault();
          setSent(undefined);
          const created = await invite.run(() =>
            api<Invitation>('POST', '/organization-invitations', {
              body: {
                invitee: invitee.trim(),
                organizationId: props.organizationId,
                expiresAt: Date.now() + Number(days) * DAY_MS,
                ...(role && { organizationRoleIds: [role] }),
                messagePayload: link.trim() ? { link: link.trim() } : false,
              },
            }),
          );
          if (created) {
            setSent(link.trim() ? `Invited ${created.invitee} and emailed the link.` : `Invited ${created.invitee}.`);
            setInvitee('');
            setLink('');
            invitations.reload();
          }
        }}
      >
        <h3>Invite someone</h3>
        <TextField
          label="Invitee email"
          type="email"
          value={invitee}
          onInput={setInvitee}
          required
          error={invite.fieldError('invitee')}
        />
        <TextField
          label="Valid for (days)"
          type="number"
          inputMode="numeric"
          min="1"
          max="365"
          value={days}
          onInput={setDays}
          required
          error={invite.fieldError('expiresAt')}
        />
        <SelectField
          label="Organization role"
          value={role}
          onChange={setRole}
          error={invite.fieldError('organizationRoleIds')}
          options={[
            { value: '', label: 'No role' },
            ...userRoles(props.roles).map((held) => ({ value: held.id, label: held.name })),
          ]}
        />
        <TextField
          label="Invitation link to email"
          type="url"
          value={link}
          onInput={setLink}
          error={invite.fieldError('messagePayload')}
          hint="Where the invitee accepts (your application's page). Empty: no email is sent; share the invitation yourself."
        />
        <div class="actions">
          <button type="submit" class="secondary" disabled={invite.pending}>
            Invite
          </button>
          <span role="status" class="status">
            {sent ?? ''}
          </span>
        </div>
        <ErrorText error={invite.actionError(fields)} />
      </form>
    </Section>
  );
}
