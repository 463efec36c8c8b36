import type { Actor } from './actor.ts';

export interface ExchangeDetails {
  /** The impersonation the token belongs to (its `impersonation_id` claim). */
  impersonationId: string;
  subjectTokenContext: Record<string, unknown>;
  actor?: Actor;
  /** The organization an API token was issued within (its `organization_id` claim). */
  organizationId?: string;
}

/**
 * Carries what an exchange learnt to the claims hook that runs while the token is signed, without
 * widening the provider's token model. Weakly held: entries vanish with their tokens.
 */
export class ExchangeRegistry {
  readonly #details = new WeakMap<object, ExchangeDetails>();

  remember(token: object, details: ExchangeDetails): void {
    this.#details.set(token, details);
  }

  lookup(token: object): ExchangeDetails | undefined {
    return this.#details.get(token);
  }
}

/** The `act` claim for an actor. */
export function actClaim(actor: Actor): Record<string, unknown> {
  return { sub: actor.sub };
}
