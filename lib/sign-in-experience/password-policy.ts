import type { PasswordPolicy } from './schema.ts';

/** Why a password breaks the policy; codes are Logto's (`password_rejected.*`) plus `common` for the offline list. */
type PasswordProblemCode =
  | 'password_rejected.too_short'
  | 'password_rejected.too_long'
  | 'password_rejected.unsupported_characters'
  | 'password_rejected.character_types'
  | 'password_rejected.common'
  | 'password_rejected.restricted.repetition'
  | 'password_rejected.restricted.sequence'
  | 'password_rejected.restricted.user_info'
  | 'password_rejected.restricted.words';

/** One broken rule: Logto's `{ code, interpolation }` plus an English `message` the pages can show as is. */
export interface PasswordProblem {
  code: PasswordProblemCode;
  message: string;
  interpolation?: Record<string, unknown>;
}

/** The identifiers a password must not contain when `rejects.userInfo` is on. */
export interface PasswordOwner {
  username?: string | null;
  primaryEmail?: string | null;
  primaryPhone?: string | null;
  name?: string | null;
}

export interface CommonPasswords {
  /** Whether the password, NFKC-normalised and lower-cased, is on the list. */
  has(normalised: string): boolean;
}

/** Runs this long or longer count as repetition or sequence: `aaaa`, `1234`, `abcd`. */
const RUN = 4;
/** Shorter identifiers and name parts are too common inside ordinary words to refuse. */
const MIN_FRAGMENT = 3;
const SEQUENCES = ['0123456789', '1234567890', 'abcdefghijklmnopqrstuvwxyz', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const SEQUENCES_BOTH_WAYS = [...SEQUENCES, ...SEQUENCES.map((sequence) => [...sequence].reverse().join(''))];
const CHARACTER_CLASSES = ['lowercase letters', 'uppercase letters', 'digits', 'symbols'];

/** What is compared: the password as it is hashed (NFKC), lower-cased, as code points. */
function normalise(value: string): string {
  return value.normalize('NFKC').toLowerCase();
}

function characterClass(char: string): 0 | 1 | 2 | 3 | 'control' {
  if (/\p{Ll}/u.test(char)) return 0;
  if (/[\p{Lu}\p{Lt}]/u.test(char)) return 1;
  if (/\p{Nd}/u.test(char)) return 2;
  if (/[\p{Cc}\p{Cs}]/u.test(char)) return 'control';
  return 3;
}

function hasRepetition(chars: readonly string[]): boolean {
  let run = 1;
  for (let i = 1; i < chars.length; i += 1) {
    run = chars[i] === chars[i - 1] ? run + 1 : 1;
    if (run >= RUN) return true;
  }
  return false;
}

function hasSequence(chars: readonly string[]): boolean {
  for (let i = 0; i + RUN <= chars.length; i += 1) {
    const window = chars.slice(i, i + RUN).join('');
    if (SEQUENCES_BOTH_WAYS.some((sequence) => sequence.includes(window))) return true;
  }
  return false;
}

/** The owner's identifiers the password contains, by field name. */
function ownerFieldsIn(password: string, owner: PasswordOwner): string[] {
  const name = owner.name ? normalise(owner.name) : '';
  const fragments: Array<[field: string, values: string[]]> = [
    ['username', owner.username ? [normalise(owner.username)] : []],
    ['email', owner.primaryEmail ? [normalise(owner.primaryEmail).replace(/@[^@]*$/, '')] : []],
    ['phone', owner.primaryPhone ? [normalise(owner.primaryPhone)] : []],
    ['name', name ? [name, name.replace(/\s+/gu, ''), ...name.split(/\s+/u)] : []],
  ];
  return fragments
    .filter(([, values]) => values.some((value) => [...value].length >= MIN_FRAGMENT && password.includes(value)))
    .map(([field]) => field);
}

/**
 * Every rule of `policy` the password breaks, `[]` when it passes. Lengths count characters (code points)
 * of the password as it is hashed; the user's identifiers are checked only when `owner` is given.
 */
export function passwordProblems(
  policy: PasswordPolicy,
  password: string,
  owner: PasswordOwner | undefined,
  common: CommonPasswords,
): PasswordProblem[] {
  const problems: PasswordProblem[] = [];
  const hashed = [...password.normalize('NFKC')];
  const { min, max } = policy.length;
  if (hashed.length < min) {
    problems.push({
      code: 'password_rejected.too_short',
      message: `must be at least ${min} characters long`,
      interpolation: { min },
    });
  } else if (hashed.length > max) {
    problems.push({
      code: 'password_rejected.too_long',
      message: `must be at most ${max} characters long`,
      interpolation: { max },
    });
  }

  const classes = new Set(hashed.map(characterClass));
  if (classes.delete('control')) {
    problems.push({ code: 'password_rejected.unsupported_characters', message: 'must not contain control characters' });
  }
  if (classes.size < policy.characterTypes.min) {
    const wanted = policy.characterTypes.min;
    problems.push({
      code: 'password_rejected.character_types',
      interpolation: { min: wanted },
      message: `must mix at least ${wanted} of: ${CHARACTER_CLASSES.join(', ')}`,
    });
  }

  const compared = normalise(password);
  const rejects = policy.rejects;
  if (rejects.commonPasswords && common.has(compared)) {
    problems.push({ code: 'password_rejected.common', message: 'is one of the most common passwords' });
  }
  if (rejects.repetitionAndSequence) {
    const chars = [...compared];
    if (hasRepetition(chars)) {
      problems.push({
        code: 'password_rejected.restricted.repetition',
        message: `must not repeat a character ${RUN} times in a row`,
      });
    }
    if (hasSequence(chars)) {
      problems.push({
        code: 'password_rejected.restricted.sequence',
        message: `must not contain a sequence of ${RUN} characters such as 1234, abcd or qwer`,
      });
    }
  }
  if (rejects.userInfo && owner) {
    const fields = ownerFieldsIn(compared, owner);
    if (fields.length) {
      problems.push({
        code: 'password_rejected.restricted.user_info',
        interpolation: { fields },
        message: `must not contain your ${fields.join(', ')}`,
      });
    }
  }
  const words = rejects.words.filter((word) => compared.includes(normalise(word)));
  if (words.length) {
    problems.push({
      code: 'password_rejected.restricted.words',
      interpolation: { words },
      message: `must not contain ${words.length === 1 ? 'the word' : 'the words'} ${words.join(', ')}`,
    });
  }
  return problems;
}
