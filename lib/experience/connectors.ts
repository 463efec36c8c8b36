import { randomBytes } from 'node:crypto';
import { errors } from '../errors.ts';
import { newId } from '../ids.ts';
import type { User } from '../users/repository.ts';
import type { UpstreamProfile } from '../connectors/upstream.ts';
import type { ConnectorVerification } from './connector-types.ts';
import type { ExperienceDeps } from './deps.ts';
import { asIdentifierConflict, assertAvailable } from './profile.ts';
import { assertEventAllowed, assertProfileComplete } from './rules.ts';
import { connectorSignInOf, identifyAs, type ExperienceRecord } from './types.ts';
import { findUserBy } from './verification.ts';

export type ConnectorType = ConnectorVerification['type'];

type Deps = Pick<
  ExperienceDeps,
  'repositories' | 'users' | 'organizationJit' | 'signInExperience' | 'connectors' | 'identities' | 'upstreams'
>;

/** Logto's social identity `details`: who the provider says the user is (never a token). */
const detailsOf = (profile: UpstreamProfile) => {
  const { id, email, phone, name, avatar, rawData } = profile;
  return {
    id,
    ...(email && { email }),
    ...(phone && { phone }),
    ...(name && { name }),
    ...(avatar && { avatar }),
    rawData,
  };
};

/**
 * Sign-in, registration and account linking through social and enterprise connectors (Logto's `Social` and
 * `EnterpriseSso` verifications). A social identity signs in the account holding it; without one, an account
 * with the provider's verified email is returned as `relatedUser` and linked only on request
 * (`linkSocialIdentity`), or at once when the settings' `socialSignIn.automaticAccountLinking` is on; an email the
 * provider does not say is verified is never matched. An enterprise identity is trusted for its connector's domains only: the account with
 * its verified email is linked automatically, as Logto does, when that email is of one of those domains; an email
 * of any other domain is never linked, set as an account's email or used to join organizations (whichever IdP
 * asserts it, it cannot vouch for addresses it does not serve), though the identity still signs in the account it
 * is linked to.
 */
export function createConnectorVerifications(deps: Deps) {
  async function usable(type: ConnectorType, connectorId: string) {
    if (type === 'Social') return (await deps.connectors.usableSocial(connectorId)).usable;
    if (!(await deps.signInExperience.get()).singleSignOnEnabled) {
      throw errors.experience(
        'user.sign_in_method_not_enabled',
        'enterprise single sign-on is off (singleSignOnEnabled)',
      );
    }
    return (await deps.connectors.usableSso(connectorId)).usable;
  }

  /** The enterprise connectors an email signs in through: none while single sign-on is off. */
  async function ssoForEmail(email: string) {
    return (await deps.signInExperience.get()).singleSignOnEnabled ? deps.connectors.ssoForEmail(email) : [];
  }

  function find(record: ExperienceRecord, verificationId: string): ConnectorVerification {
    const found = record.connectorVerifications?.find((item) => item.id === verificationId);
    if (!found)
      throw errors.experience(
        'session.verification_session_not_found',
        `no verification ${verificationId.slice(0, 64)} in this sign-in`,
      );
    return found;
  }

  function verified(
    record: ExperienceRecord,
    verificationId: string,
  ): ConnectorVerification & { profile: UpstreamProfile } {
    const found = find(record, verificationId);
    if (!found.profile)
      throw errors.experience('session.verification_failed', 'this verification has not succeeded yet');
    return found as ConnectorVerification & { profile: UpstreamProfile };
  }

  async function holder(verification: ConnectorVerification & { profile: UpstreamProfile }): Promise<User | undefined> {
    if (verification.type === 'Social') {
      const { metadata } = await deps.connectors.mustFindSocial(verification.connectorId);
      return deps.identities.userBySocial(metadata.target, verification.profile.id);
    }
    return deps.identities.userBySso(verification.profile.issuer ?? '', verification.profile.id);
  }

  /**
   * The email the provider vouches for: verified, and for an enterprise connector of one of its domains (the
   * domains it was set up for, an exact match); undefined otherwise.
   */
  async function vouchedEmail(
    verification: ConnectorVerification & { profile: UpstreamProfile },
  ): Promise<string | undefined> {
    const { email, emailVerified } = verification.profile;
    if (!email || !emailVerified) return undefined;
    if (verification.type === 'Social') return email;
    const { domains } = await deps.connectors.mustFindSso(verification.connectorId);
    return domains.includes(email.slice(email.lastIndexOf('@') + 1)) ? email : undefined;
  }

  /** The account with the email the provider vouches for, if any. */
  async function related(
    verification: ConnectorVerification & { profile: UpstreamProfile },
  ): Promise<User | undefined> {
    const email = await vouchedEmail(verification);
    return email ? findUserBy(deps.repositories, { type: 'email', value: email }) : undefined;
  }

  async function link(user: User, verification: ConnectorVerification & { profile: UpstreamProfile }): Promise<User> {
    const { profile } = verification;
    if (verification.type === 'Social') {
      const { metadata } = await deps.connectors.mustFindSocial(verification.connectorId);
      return (
        await deps.identities.linkSocial(user.id, metadata.target, { userId: profile.id, details: detailsOf(profile) })
      ).user;
    }
    await deps.identities.linkSso({
      userId: user.id,
      issuer: profile.issuer ?? '',
      identityId: profile.id,
      detail: profile.rawData,
      ssoConnectorId: verification.connectorId,
    });
    return user;
  }

  return {
    ssoForEmail,

    /**
     * An email of a domain an enterprise connector serves signs in (and registers) through it only, as in Logto:
     * 422 `session.sso_enabled` with the connectors in `data.connectorIds`.
     */
    async assertNotSsoOnly(identifier: { type: string; value: string }): Promise<void> {
      if (identifier.type !== 'email') return;
      const connectors = await ssoForEmail(identifier.value);
      if (connectors.length) {
        throw errors.experience(
          'session.sso_enabled',
          "this email address signs in with its organization's single sign-on",
          {
            connectorIds: connectors.map((connector) => connector.id),
          },
        );
      }
    },

    owns: (record: ExperienceRecord, verificationId: string | undefined) =>
      verificationId !== undefined &&
      Boolean(record.connectorVerifications?.some((item) => item.id === verificationId)),

    /** The connector sign-in of a type this experience started last (one per type), for the pages' callback. */
    latest: (record: ExperienceRecord, type: ConnectorType) =>
      record.connectorVerifications?.find((item) => item.type === type),

    /** Starts a sign-in at the upstream: the authorization URL, and the verification that will check its callback. */
    async authorize(
      record: ExperienceRecord,
      type: ConnectorType,
      connectorId: string,
      request: { state?: string; redirectUri: string },
    ): Promise<{ authorizationUri: string; verificationId: string }> {
      const state = request.state ?? randomBytes(24).toString('base64url');
      const { url, pending } = await deps.upstreams.authorize(
        await usable(type, connectorId),
        request.redirectUri,
        state,
      );
      const verification: ConnectorVerification = { id: newId(), type, connectorId, pending };
      record.connectorVerifications = [
        ...(record.connectorVerifications ?? []).filter((item) => item.type !== type),
        verification,
      ];
      return { authorizationUri: url, verificationId: verification.id };
    },

    /** Checks the upstream's callback (`connectorData`: its query parameters) and learns who the user is. */
    async verify(
      record: ExperienceRecord,
      type: ConnectorType,
      connectorId: string,
      verificationId: string,
      connectorData: Record<string, string>,
    ): Promise<string> {
      const verification = find(record, verificationId);
      if (verification.type !== type || verification.connectorId !== connectorId) {
        throw errors.experience(
          'session.verification_session_not_found',
          'this verification is not for this connector',
        );
      }
      const { pending } = verification;
      if (!pending)
        throw errors.connector('connector.authorization_failed', 'this sign-in already used its callback: start again');
      verification.profile = await deps.upstreams.callback(await usable(type, connectorId), pending, connectorData);
      delete verification.pending;
      return verification.id;
    },

    /**
     * Sign-in: the account holding the identity, or (linking, on request or by `automaticAccountLinking`) the
     * account with the provider's verified email.
     */
    async identify(record: ExperienceRecord, verificationId: string, linkSocialIdentity = false): Promise<void> {
      if (record.interactionEvent === 'ForgotPassword') {
        throw errors.experience('session.not_supported_for_forgot_password', 'a password reset is verified by a code');
      }
      const settings = await deps.signInExperience.get();
      assertEventAllowed(settings, 'SignIn');
      const verification = verified(record, verificationId);
      let user = await holder(verification);
      let linking = false;
      if (!user) {
        const candidate = await related(verification);
        const relatedUser = candidate ? { relatedUser: verification.profile.email } : {};
        const linkAsked = linkSocialIdentity || settings.socialSignIn.automaticAccountLinking === true;
        if (!candidate || (verification.type === 'Social' && !linkAsked)) {
          throw errors.experience('user.identity_not_exist', 'no account has this identity yet', relatedUser);
        }
        user = candidate;
        linking = true;
      }
      if (user.isSuspended) throw errors.experience('user.suspended', 'this account is suspended');
      if (record.userId && record.userId !== user.id) {
        throw errors.experience('session.identity_conflict', 'this sign-in already identified another account');
      }
      identifyAs(record, user.id);
      record.connectorSignIn = { verificationId, userId: user.id, link: linking };
    },

    /**
     * Registration: a new account from the identity, with the provider's email when it is verified and no other
     * account has it, its name and picture; an enterprise identity joins the connector's JIT organizations. A
     * social identity gives what sign-up requires too, unless `socialSignIn.skipRequiredIdentifiers`: what it
     * lacks is refused (422 `user.missing_profile`, the attempt kept through `save`) until the profile adds it.
     */
    async register(record: ExperienceRecord, verificationId: string, save: () => Promise<void>): Promise<User> {
      const settings = await deps.signInExperience.get();
      assertEventAllowed(settings, 'Register');
      if (record.userId)
        throw errors.experience('session.identity_conflict', 'this registration already created its account');
      const verification = verified(record, verificationId);
      if (await holder(verification))
        throw errors.conflict('user.identity_already_in_use', 'an account already has this identity: sign in instead');
      const { profile } = verification;
      const vouched = await vouchedEmail(verification);
      const email =
        record.profile.primaryEmail ??
        (vouched && !(await findUserBy(deps.repositories, { type: 'email', value: vouched })) ? vouched : undefined);
      if (verification.type === 'Social' && settings.socialSignIn.skipRequiredIdentifiers !== true) {
        record.connectorRegistration = verificationId;
        await save();
        assertProfileComplete(settings, { ...record.profile, ...(email && { primaryEmail: email }) }, undefined, true);
      }
      await assertAvailable(deps.repositories, record.profile);
      const { username, primaryPhone, passwordDigest } = record.profile;
      let created: User;
      try {
        created = await deps.users.create({
          username,
          primaryEmail: email,
          primaryPhone,
          passwordDigest,
          name: profile.name?.slice(0, 256),
          avatar: profile.avatar,
        });
      } catch (error) {
        throw asIdentifierConflict(error);
      }
      let user: User;
      try {
        user = await link(created, verification);
      } catch (error) {
        await deps.users.delete(created.id);
        throw error;
      }
      if (verification.type === 'EnterpriseSso')
        await deps.organizationJit.provisionBySsoConnector(user.id, verification.connectorId);
      if (email) await deps.organizationJit.provisionByVerifiedEmail(user.id, email);
      identifyAs(record, user.id);
      record.userCreated = true;
      record.profile = {};
      delete record.connectorRegistration;
      record.connectorSignIn = { verificationId, userId: user.id, link: false };
      return user;
    },

    /** At submit: links the identity the sign-in was identified by, syncs name and picture when the connector says so. */
    async commit(record: ExperienceRecord, submitted: User): Promise<User> {
      const signIn = connectorSignInOf(record);
      if (!signIn || signIn.userId !== submitted.id) return submitted;
      const verification = verified(record, signIn.verificationId);
      let user = submitted;
      if (signIn.link) {
        user = await link(user, verification);
        if (verification.type === 'EnterpriseSso') {
          await deps.organizationJit.provisionBySsoConnector(user.id, verification.connectorId);
        }
      } else if (verification.type === 'EnterpriseSso') {
        await link(user, verification);
      }
      const syncProfile =
        verification.type === 'Social'
          ? (await deps.connectors.mustFindSocial(verification.connectorId)).syncProfile
          : (await deps.connectors.mustFindSso(verification.connectorId)).syncProfile;
      const { name, avatar } = verification.profile;
      const sync = {
        ...(name && name !== user.name && { name: name.slice(0, 256) }),
        ...(avatar && avatar !== user.avatar && { avatar }),
      };
      if (syncProfile && !record.userCreated && Object.keys(sync).length) {
        user = await deps.users.update(user.id, sync);
      }
      return user;
    },
  };
}
