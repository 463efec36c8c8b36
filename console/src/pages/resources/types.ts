import type { Resource as StoredResource, Scope } from '../../../../lib/resources/repository.ts';

/** A scope as the management API answers it. */
export type { Scope };

/** An API resource as the management API answers it; lists may carry its scopes. */
export type Resource = StoredResource & { scopes?: Scope[] };
