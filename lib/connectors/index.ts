import type { EmitData } from '../events/operation.ts';
import type { DocumentStore } from '../ports/documents.ts';
import type { OrganizationsRepository } from '../organizations/repository.ts';
import { createSecretBox } from '../secret-box.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { Network } from '../webhooks/destinations.ts';
import { createIdentitiesLibrary } from './identities.ts';
import { createIdentitiesRepository } from './identities-repository.ts';
import { createConnectorsLibrary } from './library.ts';
import { createOutbound } from './outbound.ts';
import { createConnectorsRepository } from './repository.ts';
import { createUpstreams } from './upstream.ts';

export function openConnectorRecords(store: DocumentStore) {
  return {
    connectors: createConnectorsRepository(store),
    /** Social and enterprise identities of users, unique to one user each. */
    identities: createIdentitiesRepository(store),
  };
}

/** Social and enterprise connectors, the users' identities at them, and the upstreams they are reached through. */
export function createConnectors(deps: {
  records: ReturnType<typeof openConnectorRecords> & { users: UsersRepository; organizations: OrganizationsRepository };
  /** Connector client secrets are encrypted under keys derived from these. */
  cookieKeys: readonly string[];
  /** Non-public networks the connector upstreams an operator configures may be reached on (beyond loopback). */
  allowedNetworks?: readonly Network[];
  /** Networks a non-public issuer's discovery document may name endpoints on, beyond its own origin. */
  endpointNetworks?: readonly Network[];
  /** The total deadline of one request to an upstream, ms. */
  outboundDeadlineMs: number;
  /** How the identities library states the User.Data.Updated of a link or an unlink. */
  emit: EmitData;
}) {
  const upstreams = createUpstreams(
    createOutbound({
      allowedNetworks: deps.allowedNetworks,
      endpointNetworks: deps.endpointNetworks,
      deadlineMs: deps.outboundDeadlineMs,
    }),
  );
  return {
    ...createConnectorsLibrary({
      ...deps.records,
      secrets: createSecretBox(deps.cookieKeys, 'connector'),
      upstreams,
    }),
    identities: createIdentitiesLibrary({ ...deps.records, emit: deps.emit }),
    upstreams,
  };
}

export type Connectors = ReturnType<typeof createConnectors>;
