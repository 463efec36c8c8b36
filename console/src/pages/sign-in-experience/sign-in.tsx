import { useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { SaveForm } from '../../components/details.tsx';
import { ErrorText, Section, useAction } from '../../components/feedback.tsx';
import { CheckboxField, SelectField } from '../../components/field.tsx';
import { IDENTIFIERS, type Identifier, type SectionProps, type SignInExperience, type SignInMethod } from './types.ts';

const MODES = [
  { value: 'SignInAndRegister', label: 'Sign in and sign up' },
  { value: 'SignIn', label: 'Sign in only (no sign-up)' },
  { value: 'Register', label: 'Sign up only' },
] as const;

const SIGN_UP = [
  { value: '', label: 'No identifier' },
  { value: 'username', label: 'Username' },
  { value: 'email', label: 'Email address' },
  { value: 'phone', label: 'Phone number' },
  { value: 'email,phone', label: 'Email address or phone number' },
] as const;
type SignUpChoice = (typeof SIGN_UP)[number]['value'];

type Methods = Record<Identifier, SignInMethod & { enabled: boolean }>;

function methodsOf(settings: SignInExperience): Methods {
  const find = (identifier: Identifier) => settings.signIn.methods.find((method) => method.identifier === identifier);
  return Object.fromEntries(
    IDENTIFIERS.map(({ value }) => {
      const method = find(value);
      return [
        value,
        method
          ? { ...method, enabled: true }
          : { identifier: value, password: true, verificationCode: false, isPasswordPrimary: true, enabled: false },
      ];
    }),
  ) as Methods;
}

/** The rules the API names with an `identifier` concern that identifier's sign-in method: shown in its group. */
const identifierOf = (error: unknown) =>
  error instanceof ApiError ? (error.data as { identifier?: string } | undefined)?.identifier : undefined;

/** Sign-in methods, sign-up identifiers and the mode: saved together, since the service checks them against each other. */
export function SignInSection(props: SectionProps) {
  const [mode, setMode] = useState(props.settings.signInMode);
  const [methods, setMethods] = useState(() => methodsOf(props.settings));
  const [signUp, setSignUp] = useState(props.settings.signUp.identifiers.join(',') as SignUpChoice);
  const [password, setPassword] = useState(props.settings.signUp.password);
  const [verify, setVerify] = useState(props.settings.signUp.verify);
  const action = useAction();
  const aboutIdentifier = identifierOf(action.error);
  const change = (identifier: Identifier, changes: Partial<Methods[Identifier]>) =>
    setMethods({ ...methods, [identifier]: { ...methods[identifier], ...changes } });

  return (
    <Section
      title="Sign-in and sign-up"
      description="Which identifiers users sign in with, with which factor, and what a new account needs."
    >
      <SaveForm
        action={action}
        button="Save sign-in and sign-up"
        error={aboutIdentifier ? undefined : action.actionError(['signInMode', 'signUp'])}
        save={() => {
          const signInMethods = IDENTIFIERS.map(({ value }) => methods[value])
            .filter((method) => method.enabled)
            .map(({ identifier, password: withPassword, verificationCode, isPasswordPrimary }) => ({
              identifier,
              password: withPassword,
              verificationCode,
              // With one factor, that factor comes first.
              isPasswordPrimary: withPassword && verificationCode ? isPasswordPrimary : withPassword,
            }));
          return api<SignInExperience>('PATCH', '/sign-in-exp', {
            body: {
              signInMode: mode,
              signIn: { methods: signInMethods },
              signUp: {
                identifiers: signUp ? signUp.split(',') : [],
                password,
                verify,
                // The secondary identifiers this section does not show are kept as stored.
                ...(props.settings.signUp.secondaryIdentifiers && {
                  secondaryIdentifiers: props.settings.signUp.secondaryIdentifiers,
                }),
              },
            },
          });
        }}
        onSaved={props.onSaved}
      >
        <SelectField
          label="Sign-in mode"
          value={mode}
          options={MODES}
          onChange={setMode}
          error={action.fieldError('signInMode')}
        />
        <h3>Sign-in methods</h3>
        {IDENTIFIERS.map(({ value: identifier, label }) => {
          const method = methods[identifier];
          return (
            <fieldset key={identifier}>
              <legend>{label}</legend>
              <CheckboxField
                label={`Sign in by ${label.toLowerCase()}`}
                checked={method.enabled}
                onChange={(enabled) => change(identifier, { enabled })}
              />
              {method.enabled && (
                <>
                  <CheckboxField
                    label="Password"
                    checked={method.password}
                    onChange={(checked) => change(identifier, { password: checked })}
                  />
                  {identifier !== 'username' && (
                    <CheckboxField
                      label="Verification code"
                      checked={method.verificationCode}
                      onChange={(checked) => change(identifier, { verificationCode: checked })}
                      hint={`A one-time code sent to the ${identifier === 'email' ? 'email address' : 'phone number'}.`}
                    />
                  )}
                  {method.password && method.verificationCode && (
                    <SelectField
                      label="Offered first"
                      value={method.isPasswordPrimary ? 'password' : 'code'}
                      options={[
                        { value: 'password', label: 'Password' },
                        { value: 'code', label: 'Verification code' },
                      ]}
                      onChange={(first) => change(identifier, { isPasswordPrimary: first === 'password' })}
                    />
                  )}
                </>
              )}
              {aboutIdentifier === identifier && <ErrorText error={action.error} />}
            </fieldset>
          );
        })}
        <h3>Sign-up</h3>
        <SelectField
          label="Sign-up identifier"
          value={signUp}
          options={SIGN_UP}
          onChange={setSignUp}
          error={action.fieldError('signUp.identifiers')}
        />
        <CheckboxField
          label="New users set a password"
          checked={password}
          onChange={setPassword}
          error={action.fieldError('signUp.password')}
        />
        <CheckboxField
          label="Verify the email address or phone number"
          checked={verify}
          onChange={setVerify}
          error={action.fieldError('signUp.verify')}
          hint="With a one-time code before the account is created."
        />
      </SaveForm>
    </Section>
  );
}
