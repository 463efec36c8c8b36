import { useState } from 'preact/hooks';
import { api, apiList, containing } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { useAction } from '../../components/feedback.tsx';
import { CheckboxField, SelectField, TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { SecretBox } from '../../components/secret.tsx';
import { Created, CreateForm, ListPage } from '../../components/list.tsx';
import { navigate } from '../../router.ts';
import { APPLICATION_TYPES, typeLabel, type Application, type ApplicationType } from './types.ts';

export function ApplicationList() {
  return (
    <ListPage
      title="Applications"
      createLabel="Create application"
      what="applications"
      search={{ label: 'Search applications', placeholder: 'Name, id or description' }}
      empty={{ none: 'No applications yet.', noMatch: 'No application matches.' }}
      load={(query, paging) => apiList<Application>('/applications', { ...paging, search: containing(query) })}
      columns={[
        { header: 'Name', cell: (app) => <Link to={`/applications/${app.id}`}>{app.name}</Link> },
        { header: 'Type', cell: (app) => typeLabel(app.type) },
        { header: 'Client ID', cell: (app) => <code>{app.id}</code> },
        { header: 'Third-party', cell: (app) => (app.isThirdParty ? 'Yes' : 'No') },
      ]}
      create={({ open, close, reload }) => (
        <CreateApplication
          open={open}
          onClose={() => {
            close();
            reload();
          }}
        />
      )}
    />
  );
}

function CreateApplication(props: { open: boolean; onClose: () => void }) {
  return (
    <Dialog title="Create application" open={props.open} onClose={props.onClose}>
      <NewApplication onClose={props.onClose} />
    </Dialog>
  );
}

function NewApplication(props: { onClose: () => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<ApplicationType>('Traditional');
  const [description, setDescription] = useState('');
  const [thirdParty, setThirdParty] = useState(false);
  const [created, setCreated] = useState<Application>();
  const action = useAction();

  if (created) {
    return (
      <Created
        what="Application"
        name={created.name}
        open={() => navigate(`/applications/${created.id}`)}
        onClose={props.onClose}
      >
        <SecretBox label="Client ID" value={created.id} note="Public: the application sends it with every request." />
        {created.secret && <SecretBox label="Client secret" value={created.secret} />}
      </Created>
    );
  }
  return (
    <CreateForm
      action={action}
      error={action.actionError(['name', 'type', 'description', 'isThirdParty'])}
      onCancel={props.onClose}
      create={() =>
        api<Application>('POST', '/applications', {
          body: { name, type, ...(description && { description }), isThirdParty: thirdParty },
        })
      }
      onCreated={setCreated}
    >
      <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
      <SelectField
        label="Type"
        value={type}
        options={APPLICATION_TYPES}
        onChange={setType}
        error={action.fieldError('type')}
      />
      <TextField
        label="Description"
        value={description}
        onInput={setDescription}
        error={action.fieldError('description')}
      />
      <CheckboxField
        label="Third-party application"
        checked={thirdParty}
        onChange={setThirdParty}
        error={action.fieldError('isThirdParty')}
        hint="Another organisation's app: users are asked for consent, and it can never use token exchange."
      />
    </CreateForm>
  );
}
