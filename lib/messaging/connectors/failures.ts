import { errors } from '../../errors.ts';

/** The provider answered and refused or failed the message: retrying the same request will not help. */
export const providerRefused = (what: string) =>
  errors.badGateway('connector.general', `the ${what} refused or failed the message`);

/** The provider could not be reached (connection, DNS, time-out) or asked to come back later. */
export const providerUnreachable = (what: string) => errors.dependencyDown(`the ${what}`);
