import type { DocumentStore } from '../ports/documents.ts';
import { createUsersLibrary, type UsersLibrary } from './library.ts';
import { createUsersRepository } from './repository.ts';

/** Users: password hashing, default roles, suspension, what deletion cleans up. */
export type Users = UsersLibrary;
export const createUsers = createUsersLibrary;

export function openUserRecords(store: DocumentStore) {
  return { users: createUsersRepository(store) };
}
