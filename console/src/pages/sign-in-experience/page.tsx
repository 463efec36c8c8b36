import { api } from '../../api.ts';
import { ErrorText, Loading, useLoad } from '../../components/feedback.tsx';
import { BrandingSection, ImpersonationSection, MfaSection, PasswordPolicySection } from './policies.tsx';
import { SignInSection } from './sign-in.tsx';
import type { SignInExperience } from './types.ts';

export function SignInExperiencePage() {
  const settings = useLoad(() => api<SignInExperience>('GET', '/sign-in-exp'), []);
  return (
    <>
      <div class="page-head">
        <h1>Sign-in experience</h1>
      </div>
      <p class="hint">
        How end users sign in and sign up on this service's pages. Each section saves on its own and applies at once.
      </p>
      {settings.error ? (
        <ErrorText error={settings.error} />
      ) : !settings.data ? (
        <Loading what="the sign-in experience" />
      ) : (
        <>
          <SignInSection settings={settings.data} onSaved={settings.set} />
          <PasswordPolicySection settings={settings.data} onSaved={settings.set} />
          <MfaSection settings={settings.data} onSaved={settings.set} />
          <BrandingSection settings={settings.data} onSaved={settings.set} />
          <ImpersonationSection settings={settings.data} onSaved={settings.set} />
        </>
      )}
    </>
  );
}
