import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { useAction } from '../../components/feedback.tsx';
import { TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { CreateForm, ListPage } from '../../components/list.tsx';
import { navigate } from '../../router.ts';
import type { Organization } from './types.ts';

export function OrganizationList() {
  return (
    <ListPage
      title="Organizations"
      createLabel="Create organization"
      what="organizations"
      hint={
        <>
          Organizations group users (your customers' teams) with their own roles. Their roles and permissions come from
          the <Link to="/organization-template">organization template</Link>.
        </>
      }
      search={{ label: 'Search organizations', placeholder: 'Name, id or description' }}
      empty={{ none: 'No organizations yet.', noMatch: 'No organization matches.' }}
      load={(query, paging) =>
        apiList<Organization & { usersCount?: number }>('/organizations', {
          ...paging,
          q: query || undefined,
          showFeatured: 'true',
        })
      }
      columns={[
        {
          header: 'Name',
          cell: (organization) => <Link to={`/organizations/${organization.id}`}>{organization.name}</Link>,
        },
        { header: 'Description', cell: (organization) => organization.description || '—' },
        { header: 'Members', numeric: true, cell: (organization) => String(organization.usersCount ?? '—') },
        { header: 'Created', cell: (organization) => new Date(organization.createdAt).toLocaleDateString() },
      ]}
      create={({ open, close }) => (
        <Dialog title="Create organization" open={open} onClose={close}>
          <CreateOrganization
            onCancel={close}
            onCreated={(organization) => {
              close();
              navigate(`/organizations/${organization.id}`);
            }}
          />
        </Dialog>
      )}
    />
  );
}

function CreateOrganization(props: { onCreated: (organization: Organization) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  return (
    <CreateForm
      action={action}
      error={action.actionError(['name', 'description'])}
      onCancel={props.onCancel}
      create={() =>
        api<Organization>('POST', '/organizations', {
          body: { name, ...(description && { description }) },
        })
      }
      onCreated={props.onCreated}
    >
      <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
      <TextField
        label="Description"
        value={description}
        onInput={setDescription}
        error={action.fieldError('description')}
      />
    </CreateForm>
  );
}
