import type { DocumentStore } from '../ports/documents.ts';
import { createApplicationsLibrary, type ApplicationsLibrary } from './library.ts';
import { createApplicationsRepository } from './repository.ts';

/** OIDC clients: secrets, the third-party rule, settings that fit the type, M2M role assignment. */
export type Applications = ApplicationsLibrary;
export const createApplications = createApplicationsLibrary;

/** The applications' records, for the composition root to hand to the capabilities that join on them. */
export function openApplicationRecords(store: DocumentStore) {
  return { applications: createApplicationsRepository(store) };
}
