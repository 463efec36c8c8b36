import { dictionary } from '@zxcvbn-ts/language-common';
import type { CommonPasswords } from './password-policy.ts';

/**
 * The ~49,000 most common passwords of public breach corpora, as zxcvbn ranks them, shipped inside the
 * package: nothing is fetched. Built on first use (a few milliseconds) and kept by the instance that asked.
 */
export function commonPasswordList(): CommonPasswords {
  let entries: Set<string> | undefined;
  return {
    has(normalised: string): boolean {
      entries ??= new Set(dictionary['passwords-common'].map((entry) => entry.normalize('NFKC').toLowerCase()));
      return entries.has(normalised);
    },
  };
}
