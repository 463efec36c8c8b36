import { CheckboxField, SelectField, TextField } from '../../components/field.tsx';
import { configError, text } from './types.ts';

const PROFILE_FIELDS = [
  { key: 'id', label: 'User ID claim', oidc: 'sub', oauth2: 'id' },
  { key: 'email', label: 'Email claim', oidc: 'email', oauth2: 'email' },
  { key: 'emailVerified', label: 'Email verified claim', oidc: 'email_verified', oauth2: '' },
  { key: 'phone', label: 'Phone claim', oidc: 'phone_number', oauth2: 'phone' },
  { key: 'name', label: 'Name claim', oidc: 'name', oauth2: 'name' },
  { key: 'avatar', label: 'Avatar claim', oidc: 'picture', oauth2: 'avatar' },
] as const;

export interface SocialConfigForm {
  clientId: string;
  clientSecret: string;
  discovery: boolean;
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userInfoEndpoint: string;
  idTokenIssuer: string;
  jwksUri: string;
  scope: string;
  tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post';
  profileMap: Record<string, string>;
}

export const EMPTY_SOCIAL_CONFIG: SocialConfigForm = {
  clientId: '',
  clientSecret: '',
  discovery: true,
  issuer: '',
  authorizationEndpoint: '',
  tokenEndpoint: '',
  userInfoEndpoint: '',
  idTokenIssuer: '',
  jwksUri: '',
  scope: '',
  tokenEndpointAuthMethod: 'client_secret_basic',
  profileMap: {},
};

export function socialConfigForm(config: Record<string, unknown>): SocialConfigForm {
  const idToken = (config.idTokenConfig ?? {}) as Record<string, unknown>;
  return {
    clientId: text(config.clientId),
    clientSecret: '',
    discovery: Boolean(config.issuer),
    issuer: text(config.issuer),
    authorizationEndpoint: text(config.authorizationEndpoint),
    tokenEndpoint: text(config.tokenEndpoint),
    userInfoEndpoint: text(config.userInfoEndpoint),
    idTokenIssuer: text(idToken.issuer),
    jwksUri: text(idToken.jwksUri),
    scope: text(config.scope),
    tokenEndpointAuthMethod:
      config.tokenEndpointAuthMethod === 'client_secret_post' ? 'client_secret_post' : 'client_secret_basic',
    profileMap: Object.fromEntries(
      Object.entries((config.profileMap ?? {}) as Record<string, unknown>).map(([key, value]) => [key, text(value)]),
    ),
  };
}

/** The config the API takes: only what was filled in; no secret means "keep the stored one" on an update. */
export function socialConfig(form: SocialConfigForm, factory: 'oidc' | 'oauth2'): Record<string, unknown> {
  const filled = (value: string) => value.trim() || undefined;
  const profileMap = Object.fromEntries(
    Object.entries(form.profileMap)
      .filter(([, value]) => value.trim())
      .map(([key, value]) => [key, value.trim()]),
  );
  const endpoints = form.discovery
    ? { issuer: filled(form.issuer) }
    : {
        authorizationEndpoint: filled(form.authorizationEndpoint),
        tokenEndpoint: filled(form.tokenEndpoint),
        userInfoEndpoint: filled(form.userInfoEndpoint),
        ...(factory === 'oidc' && {
          idTokenConfig: { issuer: form.idTokenIssuer.trim(), jwksUri: form.jwksUri.trim() },
        }),
      };
  return JSON.parse(
    JSON.stringify({
      clientId: form.clientId.trim(),
      clientSecret: filled(form.clientSecret),
      ...endpoints,
      scope: filled(form.scope),
      tokenEndpointAuthMethod: form.tokenEndpointAuthMethod,
      profileMap,
    }),
  ) as Record<string, unknown>;
}

/** The stored config's keys this form edits; a save replaces them with what the form holds. */
const FORM_KEYS: ReadonlySet<string> = new Set([
  'clientId',
  'clientSecret',
  'issuer',
  'authorizationEndpoint',
  'tokenEndpoint',
  'userInfoEndpoint',
  'idTokenConfig',
  'scope',
  'tokenEndpointAuthMethod',
  'profileMap',
]);

/**
 * The config a save sends: the form's fields over the stored ones it does not show (Logto's
 * `idTokenVerificationConfig`, `customConfig`, `tokenEndpointResponseType`, …), which an update would otherwise drop.
 */
export function updatedSocialConfig(
  stored: Record<string, unknown>,
  form: SocialConfigForm,
  factory: 'oidc' | 'oauth2',
): Record<string, unknown> {
  const beyondTheForm = Object.fromEntries(Object.entries(stored).filter(([key]) => !FORM_KEYS.has(key)));
  return { ...beyondTheForm, ...socialConfig(form, factory) };
}

/** The config fields whose errors show at them. */
export const SOCIAL_CONFIG_FIELDS = [
  'clientId',
  'clientSecret',
  'issuer',
  'authorizationEndpoint',
  'tokenEndpoint',
  'userInfoEndpoint',
  'idTokenConfig',
  'scope',
  'tokenEndpointAuthMethod',
  'profileMap',
];

/** A social connector's provider settings. `storedSecret` is the masked secret of a connector being edited. */
export function SocialConfigFields(props: {
  factory: 'oidc' | 'oauth2';
  value: SocialConfigForm;
  onChange: (value: SocialConfigForm) => void;
  error: unknown;
  storedSecret?: string;
}) {
  const { value, factory } = props;
  const set = (changes: Partial<SocialConfigForm>) => props.onChange({ ...value, ...changes });
  const error = (field: string) => configError(props.error, field);
  return (
    <>
      <TextField
        label="Client ID"
        value={value.clientId}
        onInput={(clientId) => set({ clientId })}
        required
        error={error('clientId')}
      />
      <TextField
        label="Client secret"
        type="password"
        autoComplete="off"
        value={value.clientSecret}
        onInput={(clientSecret) => set({ clientSecret })}
        required={props.storedSecret === undefined}
        error={error('clientSecret')}
        hint={
          props.storedSecret === undefined
            ? 'Stored encrypted; never shown again.'
            : `Stored: ${props.storedSecret}. Empty keeps it.`
        }
      />
      <CheckboxField
        label="Find the endpoints by discovery"
        checked={value.discovery}
        onChange={(discovery) => set({ discovery })}
        hint="From the issuer's /.well-known/openid-configuration; otherwise give the endpoints."
      />
      {value.discovery ? (
        <TextField
          label="Issuer"
          type="url"
          value={value.issuer}
          onInput={(issuer) => set({ issuer })}
          required
          error={error('issuer')}
          placeholder="https://accounts.example.com"
        />
      ) : (
        <>
          <TextField
            label="Authorization endpoint"
            type="url"
            value={value.authorizationEndpoint}
            onInput={(authorizationEndpoint) => set({ authorizationEndpoint })}
            required
            error={error('authorizationEndpoint') ?? error('issuer')}
          />
          <TextField
            label="Token endpoint"
            type="url"
            value={value.tokenEndpoint}
            onInput={(tokenEndpoint) => set({ tokenEndpoint })}
            required
            error={error('tokenEndpoint')}
          />
          <TextField
            label="Userinfo endpoint"
            type="url"
            value={value.userInfoEndpoint}
            onInput={(userInfoEndpoint) => set({ userInfoEndpoint })}
            required={factory === 'oauth2'}
            error={error('userInfoEndpoint')}
          />
          {factory === 'oidc' && (
            <>
              <TextField
                label="ID token issuer"
                value={value.idTokenIssuer}
                onInput={(idTokenIssuer) => set({ idTokenIssuer })}
                required
                error={error('idTokenConfig.issuer')}
              />
              <TextField
                label="JWKS URI"
                type="url"
                value={value.jwksUri}
                onInput={(jwksUri) => set({ jwksUri })}
                required
                error={error('idTokenConfig.jwksUri')}
              />
            </>
          )}
        </>
      )}
      <TextField
        label="Scope"
        value={value.scope}
        onInput={(scope) => set({ scope })}
        error={error('scope')}
        placeholder={factory === 'oidc' ? 'openid profile email' : ''}
        hint={factory === 'oidc' ? 'Space-separated; must include openid.' : 'Space-separated.'}
      />
      <SelectField
        label="Client authentication"
        value={value.tokenEndpointAuthMethod}
        onChange={(tokenEndpointAuthMethod) => set({ tokenEndpointAuthMethod })}
        error={error('tokenEndpointAuthMethod')}
        options={[
          { value: 'client_secret_basic', label: 'HTTP Basic (client_secret_basic)' },
          { value: 'client_secret_post', label: 'In the body (client_secret_post)' },
        ]}
      />
      <fieldset>
        <legend>Claim mapping</legend>
        <p class="hint">Which claim of the provider holds each profile field. Empty: the default shown.</p>
        {PROFILE_FIELDS.map((field) => (
          <TextField
            key={field.key}
            label={field.label}
            value={value.profileMap[field.key] ?? ''}
            placeholder={field[factory]}
            onInput={(claim) => set({ profileMap: { ...value.profileMap, [field.key]: claim } })}
            error={error(`profileMap.${field.key}`)}
          />
        ))}
      </fieldset>
    </>
  );
}
