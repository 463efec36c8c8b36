import type { DocumentStore } from '../ports/documents.ts';
import { createResourcesLibrary } from './library.ts';
import { createResourcesRepository } from './repository.ts';

/** API resources and their scopes: unique indicators, the built-in management API, one default, delete cascades. */
export type Resources = ReturnType<typeof createResourcesLibrary>;
export const createResources = createResourcesLibrary;

export function openResourceRecords(store: DocumentStore) {
  return { resources: createResourcesRepository(store) };
}
