export type Identifier = 'username' | 'email' | 'phone';

export interface SignInMethod {
  identifier: Identifier;
  password: boolean;
  verificationCode: boolean;
  isPasswordPrimary: boolean;
}

export interface PasswordPolicy {
  length: { min: number; max: number };
  characterTypes: { min: number };
  rejects: {
    pwned: boolean;
    commonPasswords: boolean;
    repetitionAndSequence: boolean;
    userInfo: boolean;
    words: string[];
  };
}

export type MfaFactor = 'Totp' | 'WebAuthn' | 'BackupCode';
export type MfaPolicy = 'NoPrompt' | 'UserControlled' | 'PromptAtSignInAndSignUp' | 'PromptOnlyAtSignIn' | 'Mandatory';

export interface SignInExperience {
  id: 'default';
  signInMode: 'SignIn' | 'Register' | 'SignInAndRegister';
  signIn: { methods: SignInMethod[] };
  signUp: {
    identifiers: Identifier[];
    password: boolean;
    verify: boolean;
    /** Not edited here: a save sends back what is stored. */
    secondaryIdentifiers?: Array<{ identifier: Identifier | 'emailOrPhone'; verify?: boolean }>;
  };
  passwordPolicy: PasswordPolicy;
  branding: { logoUrl?: string; darkLogoUrl?: string };
  mfa: { factors: MfaFactor[]; policy: MfaPolicy; organizationRequiredMfaPolicy: 'NoPrompt' | 'Mandatory' };
  impersonation: { requireReason: boolean; notifyByEmail: boolean };
}

/** Each section saves its own part of the sign-in experience and shows the answer. */
export interface SectionProps {
  settings: SignInExperience;
  onSaved: (settings: SignInExperience) => void;
}

export const IDENTIFIERS: ReadonlyArray<{ value: Identifier; label: string }> = [
  { value: 'username', label: 'Username' },
  { value: 'email', label: 'Email address' },
  { value: 'phone', label: 'Phone number' },
];
