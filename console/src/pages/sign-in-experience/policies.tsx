import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorText, Section, useAction } from '../../components/feedback.tsx';
import { CheckboxField, LinesField, SelectField, TextField } from '../../components/field.tsx';
import type { MfaFactor, MfaPolicy, SectionProps, SignInExperience } from './types.ts';

/** One section's save: PATCHes its part, hands the answer back, says "Saved." */
function useSave(props: SectionProps) {
  const action = useAction();
  const [saved, setSaved] = useState(false);
  return {
    action,
    saved,
    async save(body: Partial<SignInExperience>) {
      setSaved(false);
      const updated = await action.run(() => api<SignInExperience>('PATCH', '/sign-in-exp', { body }));
      if (updated) {
        props.onSaved(updated);
        setSaved(true);
      }
    },
  };
}

function SaveButton(props: { label: string; pending: boolean; saved: boolean }) {
  return (
    <div class="actions">
      <button type="submit" disabled={props.pending}>
        {props.label}
      </button>
      <span role="status" class="status">
        {props.saved ? 'Saved.' : ''}
      </span>
    </div>
  );
}

export function PasswordPolicySection(props: SectionProps) {
  const policy = props.settings.passwordPolicy;
  const [min, setMin] = useState(String(policy.length.min));
  const [max, setMax] = useState(String(policy.length.max));
  const [types, setTypes] = useState(String(policy.characterTypes.min));
  const [common, setCommon] = useState(policy.rejects.commonPasswords);
  const [sequences, setSequences] = useState(policy.rejects.repetitionAndSequence);
  const [userInfo, setUserInfo] = useState(policy.rejects.userInfo);
  const [words, setWords] = useState(policy.rejects.words);
  const { action, saved, save } = useSave(props);
  const field = (name: string) => action.fieldError(`passwordPolicy.${name}`);
  return (
    <Section title="Password policy" description="What a new password must be, at sign-up, reset and change.">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save({
            passwordPolicy: {
              length: { min: Number(min), max: Number(max) },
              characterTypes: { min: Number(types) },
              rejects: {
                pwned: false,
                commonPasswords: common,
                repetitionAndSequence: sequences,
                userInfo,
                words: words.filter(Boolean),
              },
            },
          });
        }}
      >
        <TextField
          label="Minimum length"
          type="number"
          inputMode="numeric"
          min="1"
          value={min}
          onInput={setMin}
          required
          error={field('length.min')}
        />
        <TextField
          label="Maximum length"
          type="number"
          inputMode="numeric"
          min="1"
          value={max}
          onInput={setMax}
          required
          error={field('length.max')}
        />
        <SelectField
          label="Character types required"
          value={types}
          onChange={setTypes}
          error={field('characterTypes.min')}
          hint="How many of lowercase letters, uppercase letters, digits and symbols a password mixes."
          options={['1', '2', '3', '4'].map((value) => ({ value, label: value }))}
        />
        <CheckboxField
          label="Refuse common passwords"
          checked={common}
          onChange={setCommon}
          error={field('rejects.commonPasswords')}
          hint="The most common 49,000 passwords (an offline list)."
        />
        <CheckboxField
          label="Refuse repetitions and sequences"
          checked={sequences}
          onChange={setSequences}
          error={field('rejects.repetitionAndSequence')}
          hint="Such as aaaa, 1234, abcd or qwer."
        />
        <CheckboxField
          label="Refuse the user's own details"
          checked={userInfo}
          onChange={setUserInfo}
          error={field('rejects.userInfo')}
          hint="Username, email, phone number or name."
        />
        <LinesField
          label="Refused words"
          value={words}
          onInput={setWords}
          error={field('rejects.words')}
          hint="One per line: passwords containing one are refused."
        />
        <SaveButton label="Save password policy" pending={action.pending} saved={saved} />
        <ErrorText error={action.actionError(['passwordPolicy'])} />
      </form>
    </Section>
  );
}

const MFA_POLICIES: ReadonlyArray<{ value: MfaPolicy; label: string }> = [
  { value: 'NoPrompt', label: 'Optional: users enrol from their account, never asked' },
  { value: 'PromptAtSignInAndSignUp', label: 'Asked at sign-up and sign-in, can skip' },
  { value: 'PromptOnlyAtSignIn', label: 'Asked at sign-in only, can skip' },
  { value: 'Mandatory', label: 'Mandatory: every user enrols a factor' },
];

export function MfaSection(props: SectionProps) {
  const mfa = props.settings.mfa;
  const [factors, setFactors] = useState(new Set(mfa.factors));
  // Logto's older name for asking at sign-up and sign-in: shown, and saved, as the newer one.
  const [policy, setPolicy] = useState<MfaPolicy>(
    mfa.policy === 'UserControlled' ? 'PromptAtSignInAndSignUp' : mfa.policy,
  );
  const [organizations, setOrganizations] = useState(mfa.organizationRequiredMfaPolicy);
  const { action, saved, save } = useSave(props);
  const toggle = (factor: MfaFactor, on: boolean) => {
    const next = new Set(factors);
    if (on) next.add(factor);
    else next.delete(factor);
    setFactors(next);
  };
  return (
    <Section
      title="Multi-factor authentication"
      description="Second factors users may enrol, and when they are asked to."
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save({ mfa: { factors: [...factors], policy, organizationRequiredMfaPolicy: organizations } });
        }}
      >
        <fieldset>
          <legend>Factors users may enrol</legend>
          <CheckboxField
            label="Authenticator app (TOTP)"
            checked={factors.has('Totp')}
            onChange={(on) => toggle('Totp', on)}
          />
          <CheckboxField
            label="Passkeys (WebAuthn)"
            checked={factors.has('WebAuthn')}
            onChange={(on) => toggle('WebAuthn', on)}
            hint="A security key or the device's own authenticator."
          />
          <CheckboxField
            label="Backup codes"
            checked={factors.has('BackupCode')}
            onChange={(on) => toggle('BackupCode', on)}
            hint="Only beside another factor."
          />
        </fieldset>
        <SelectField
          label="MFA policy"
          value={policy}
          options={MFA_POLICIES}
          onChange={setPolicy}
          error={action.fieldError('mfa.policy')}
        />
        <SelectField
          label="Organizations requiring MFA"
          value={organizations}
          onChange={setOrganizations}
          error={action.fieldError('mfa.organizationRequiredMfaPolicy')}
          options={[
            { value: 'NoPrompt', label: 'Refuse their tokens to members without a factor' },
            { value: 'Mandatory', label: 'Members must enrol at sign-in' },
          ]}
        />
        <SaveButton label="Save MFA settings" pending={action.pending} saved={saved} />
        <ErrorText error={action.actionError(['mfa.policy', 'mfa.organizationRequiredMfaPolicy'])} />
      </form>
    </Section>
  );
}

export function BrandingSection(props: SectionProps) {
  const [logo, setLogo] = useState(props.settings.branding.logoUrl ?? '');
  const { action, saved, save } = useSave(props);
  return (
    <Section title="Branding" description="The logo on the sign-in pages, unless the application has its own.">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          // The branding is replaced whole: a dark logo set through the API stays as it is.
          const { darkLogoUrl } = props.settings.branding;
          void save({
            branding: { ...(logo.trim() && { logoUrl: logo.trim() }), ...(darkLogoUrl && { darkLogoUrl }) },
          });
        }}
      >
        <TextField
          label="Logo URL"
          type="url"
          value={logo}
          onInput={setLogo}
          error={action.fieldError('branding.logoUrl')}
          placeholder="https://example.com/logo.svg"
        />
        <SaveButton label="Save branding" pending={action.pending} saved={saved} />
        <ErrorText error={action.actionError(['branding'])} />
      </form>
    </Section>
  );
}

export function ImpersonationSection(props: SectionProps) {
  const [requireReason, setRequireReason] = useState(props.settings.impersonation.requireReason);
  const [notifyByEmail, setNotifyByEmail] = useState(props.settings.impersonation.notifyByEmail);
  const { action, saved, save } = useSave(props);
  return (
    <Section title="Impersonation" description="What acting as a user requires, and what the user is told.">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save({ impersonation: { requireReason, notifyByEmail } });
        }}
      >
        <CheckboxField
          label="Require a reason"
          checked={requireReason}
          onChange={setRequireReason}
          error={action.fieldError('impersonation.requireReason')}
          hint="A subject token is refused without a reason, which the user sees in their account's impersonation history."
        />
        <CheckboxField
          label="Email the user at each impersonation"
          checked={notifyByEmail}
          onChange={setNotifyByEmail}
          error={action.fieldError('impersonation.notifyByEmail')}
          hint="After each exchange, users with an email address get a message saying when, through which application, by whom and why."
        />
        <SaveButton label="Save impersonation settings" pending={action.pending} saved={saved} />
        <ErrorText error={action.actionError(['impersonation'])} />
      </form>
    </Section>
  );
}
