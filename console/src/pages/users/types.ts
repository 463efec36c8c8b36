import type { User } from '../../../../lib/users/repository.ts';

/** A user as the management API answers it. */
export type { User };

/** How the console names a user: name, then username, email, phone, id. */
export const displayName = (user: User) =>
  user.name || user.username || user.primaryEmail || user.primaryPhone || user.id;

/** The password policy's verdict (422 `password.rejected`) belongs to the password field. */
export function passwordProblems(error: unknown): string | undefined {
  const rejected = error as { code?: string; data?: { problems?: Array<{ message: string }> } } | undefined;
  if (rejected?.code !== 'password.rejected') return undefined;
  const problems = rejected.data?.problems?.map((problem) => problem.message);
  return problems?.length ? `The password ${problems.join('; ')}.` : undefined;
}

const CONFLICTS: Record<string, string> = {
  username: 'user.username_already_in_use',
  primaryEmail: 'user.email_already_in_use',
  primaryPhone: 'user.phone_already_in_use',
};
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code ?? '';

/** A conflict the API names by its code (an identifier someone else has) belongs to that field. */
export function conflictFor(error: unknown, field: string): string | undefined {
  return CONFLICTS[field] === codeOf(error) ? (error as Error).message : undefined;
}

/** Whether a field already shows this error (a conflict or the password policy), so the action need not. */
export const shownAtField = (error: unknown) =>
  Object.values(CONFLICTS).includes(codeOf(error)) || passwordProblems(error) !== undefined;
