import type { DocumentStore } from '../ports/documents.ts';
import { createRolesLibrary } from './library.ts';
import { createRolesRepository } from './repository.ts';

/** Roles, their scopes and their holders (users, M2M applications). */
export type Roles = ReturnType<typeof createRolesLibrary>;
export const createRoles = createRolesLibrary;

export function openRoleRecords(store: DocumentStore) {
  return { roles: createRolesRepository(store) };
}
