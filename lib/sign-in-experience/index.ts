import type { DocumentStore } from '../ports/documents.ts';
import { createSignInExperienceLibrary, type SignInExperienceLibrary } from './library.ts';
import { createSignInExperienceRepository } from './repository.ts';

/** The one sign-in experience document: its settings, validated, and the password policy it sets. */
export type SignInExperienceSettings = SignInExperienceLibrary;
export const createSignInExperience = createSignInExperienceLibrary;

export function openSignInExperienceRecords(store: DocumentStore) {
  return { signInExperience: createSignInExperienceRepository(store) };
}
