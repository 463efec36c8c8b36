import { errors } from '../errors.ts';
import { commonPasswordList } from './common-passwords.ts';
import { passwordProblems, type PasswordOwner, type PasswordProblem } from './password-policy.ts';
import type { SignInExperienceRepository } from './repository.ts';
import {
  DEFAULT_SIGN_IN_EXPERIENCE,
  signInExperience,
  signInExperiencePatch,
  unsupportedSettingsOf,
  type SignInExperience,
  type SignInExperiencePatch,
} from './schema.ts';
import { assertConsistent, refuseUnsupported } from './validation.ts';

export type { PasswordOwner, PasswordProblem } from './password-policy.ts';
export type { ImpersonationSettings, SignInExperience } from './schema.ts';

/** How often a patch is re-applied when another writer changed the settings between its read and its write. */
const WRITE_ATTEMPTS = 5;

/** The stored settings over the defaults: a document written before a setting existed gets its default. */
function withDefaults(stored: SignInExperience | undefined): SignInExperience {
  return signInExperience.parse({ ...DEFAULT_SIGN_IN_EXPERIENCE, ...stored, id: 'default' });
}

function parsePatch(patch: unknown): SignInExperiencePatch {
  const result = signInExperiencePatch.safeParse(patch);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: ['body', ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw errors.invalidInput(`invalid body: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
}

/** Logto's merge: each field given replaces the stored one; password-policy parts left out take their defaults. */
function applyPatch(current: SignInExperience, patch: SignInExperiencePatch): SignInExperience {
  const defaults = DEFAULT_SIGN_IN_EXPERIENCE.passwordPolicy;
  const policy = patch.passwordPolicy;
  return {
    id: 'default',
    signInMode: patch.signInMode ?? current.signInMode,
    signIn: patch.signIn ?? current.signIn,
    signUp: patch.signUp
      ? {
          identifiers: patch.signUp.identifiers,
          password: patch.signUp.password,
          verify: patch.signUp.verify,
          ...(patch.signUp.secondaryIdentifiers && { secondaryIdentifiers: patch.signUp.secondaryIdentifiers }),
        }
      : current.signUp,
    passwordPolicy: policy
      ? {
          length: { ...defaults.length, ...policy.length },
          characterTypes: { ...defaults.characterTypes, ...policy.characterTypes },
          rejects: { ...defaults.rejects, ...policy.rejects },
        }
      : current.passwordPolicy,
    branding: patch.branding
      ? {
          ...(patch.branding.logoUrl !== undefined && { logoUrl: patch.branding.logoUrl }),
          ...(patch.branding.darkLogoUrl !== undefined && { darkLogoUrl: patch.branding.darkLogoUrl }),
        }
      : current.branding,
    mfa: patch.mfa ? { organizationRequiredMfaPolicy: 'NoPrompt', ...patch.mfa } : current.mfa,
    sentinelPolicy: patch.sentinelPolicy ?? current.sentinelPolicy,
    forgotPasswordMethods:
      patch.forgotPasswordMethods === undefined ? current.forgotPasswordMethods : patch.forgotPasswordMethods,
    singleSignOnEnabled: patch.singleSignOnEnabled ?? current.singleSignOnEnabled,
    impersonation: { ...current.impersonation, ...patch.impersonation },
    socialSignIn: patch.socialSignIn
      ? Object.fromEntries(Object.entries(patch.socialSignIn).filter(([, value]) => value !== undefined))
      : current.socialSignIn,
  };
}

/**
 * The sign-in experience: what end users may do (sign in how, register or not, with which identifiers)
 * and the password policy. The Experience API and the sign-in pages read it here; only `update` writes it.
 */
export function createSignInExperienceLibrary(repository: SignInExperienceRepository) {
  const common = commonPasswordList();

  async function get(): Promise<SignInExperience> {
    return withDefaults((await repository.find())?.settings);
  }

  async function checkPassword(password: string, user?: PasswordOwner): Promise<PasswordProblem[]> {
    return passwordProblems((await get()).passwordPolicy, password, user, common);
  }

  return {
    /** The stored settings, defaults filled in. */
    get,
    /**
     * Validates a patch (shape 400 `guard.invalid_input`; Logto settings not supported and inconsistent
     * combinations 422 with their code), applies it to the current settings and stores the result.
     */
    async update(patch: unknown): Promise<SignInExperience> {
      const parsed = parsePatch(patch);
      refuseUnsupported(unsupportedSettingsOf(parsed));
      for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt += 1) {
        const stored = await repository.find();
        const next = applyPatch(withDefaults(stored?.settings), parsed);
        assertConsistent(next);
        if (await repository.replaceIfUnchanged(next, stored?.revision ?? 0)) return next;
      }
      throw errors.conflict('sign_in_experiences.update_conflict', 'the sign-in experience kept changing; retry');
    },
    /** Every rule the password breaks (`[]` when it passes), for the user's identifiers when known. */
    checkPassword,
    /** Throws 422 `password.rejected` with `data: { problems }` when the password breaks any rule. */
    async assertPassword(password: string, user?: PasswordOwner): Promise<void> {
      const problems = await checkPassword(password, user);
      if (problems.length) {
        throw errors.unprocessable(
          'password.rejected',
          `the password ${problems.map((problem) => problem.message).join('; ')}`,
          { problems },
        );
      }
    },
  };
}

export type SignInExperienceLibrary = ReturnType<typeof createSignInExperienceLibrary>;
