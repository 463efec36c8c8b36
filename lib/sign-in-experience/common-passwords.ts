import { createRequire } from 'node:module';
import type { CommonPasswords } from './password-policy.ts';

type Dictionaries = typeof import('@zxcvbn-ts/language-common');

/** Required on first use: the package's dictionaries weigh megabytes an instance that never checks a password need not hold. */
function load(): Set<string> {
  const { dictionary }: Dictionaries = createRequire(import.meta.url)('@zxcvbn-ts/language-common');
  return new Set(dictionary['passwords-common'].map((entry) => entry.normalize('NFKC').toLowerCase()));
}

/**
 * The ~49,000 most common passwords of public breach corpora, as zxcvbn ranks them, shipped inside the
 * package: nothing is fetched. Built on first use (a few milliseconds) and kept by the instance that asked.
 */
export function commonPasswordList(): CommonPasswords {
  let entries: Set<string> | undefined;
  return {
    has(normalised: string): boolean {
      entries ??= load();
      return entries.has(normalised);
    },
  };
}
