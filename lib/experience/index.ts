import type { Context } from 'koa';
import { errors } from '../errors.ts';
import type { MessageEventContext, Recipient } from '../messaging/index.ts';
import { findInteraction, remainingSeconds, setExperienceCookie, type Interaction } from './binding.ts';
import type { ExperienceDeps } from './deps.ts';
import type { User } from '../users/repository.ts';
import { createExperienceEvents } from './events.ts';
import { createIdentification } from './identification.ts';
import { createProfiles, type ProfileInput } from './profile.ts';
import { assertEventAllowed, assertEventSwitch } from './rules.ts';
import { createExperienceStore } from './store.ts';
import { createSubmission } from './submission.ts';
import {
  dropAccountState,
  identifyAs,
  publicProfile,
  type ExperienceIdentifier,
  type ExperienceRecord,
  type ExperienceRequest,
  type InteractionEvent,
} from './types.ts';
import { createVerifications } from './verification.ts';
import { createConnectorVerifications, type ConnectorType } from './connectors.ts';
import { createMfaStep } from './mfa.ts';
import type { AuthenticationPayload, RegistrationPayload } from '../mfa/webauthn-payloads.ts';

export type { ExperienceRequest, InteractionEvent, ExperienceIdentifier } from './types.ts';
export type { ProfileInput } from './profile.ts';
export type { ExperienceDeps } from './deps.ts';
export { experienceUidOf } from './binding.ts';

/** What a client may read of an experience: never a secret, a digest or an undelivered marker. */
export interface ExperienceState {
  interactionEvent: InteractionEvent;
  userId?: string;
  profile: ReturnType<typeof publicProfile>;
  verificationRecords: Array<{ id: string; type: string; identifier: ExperienceIdentifier; verified: boolean }>;
}

/**
 * End-user sign-in, registration and password reset (Logto's Experience API), as one library with two faces:
 * the JSON API under `/api/experience` and the server-rendered pages. Every operation takes the OIDC
 * interaction's uid with the request's address and user agent (`ExperienceRequest`); the pages have the uid in
 * their path, the API reads it from the cookie `bindCookie` sets. State lives in the key-value store, one record
 * per interaction, as long as the interaction.
 */
export function createExperience(deps: ExperienceDeps) {
  const store = createExperienceStore(deps.kv);
  const { lockout } = deps;
  const verifications = createVerifications({ ...deps, lockout });
  const profiles = createProfiles(deps);
  const identification = createIdentification(deps);
  const mfaStep = createMfaStep({ ...deps, lockout });
  const submission = createSubmission({ ...deps, mfaStep });
  const events = createExperienceEvents(deps);
  const connectorFlows = createConnectorVerifications(deps);

  interface Open {
    interaction: Interaction;
    record: ExperienceRecord;
    save(): Promise<void>;
  }

  /** The interaction and its experience; 400 `session.not_found`, or 404 `session.interaction_not_found` before start. */
  async function open(request: ExperienceRequest): Promise<Open> {
    const interaction = await findInteraction(deps.provider, request.uid);
    const record = await store.load(interaction.uid);
    if (!record) {
      throw errors.experience(
        'session.interaction_not_found',
        'no experience was started for this sign-in: PUT /api/experience first',
      );
    }
    return { interaction, record, save: () => store.save(interaction.uid, record, remainingSeconds(interaction)) };
  }

  /**
   * One step of the flow, serialized per interaction: what the libraries change during it is published once the
   * experience is saved, in the flow's context (see OperationEvents).
   */
  function step<T>(request: ExperienceRequest, change: (opened: Open) => Promise<T>): Promise<T> {
    return store.serialized(request.uid, async () => {
      const opened = await open(request);
      const { value, events: changes } = await deps.operations.collect(() => change(opened));
      await opened.save();
      await events.changed(opened.interaction, request, opened.record.interactionEvent, changes);
      return value;
    });
  }

  /** A change to the experience of an identified account (sign-in or registration; forgot password has no MFA step). */
  function withUser<T>(
    request: ExperienceRequest,
    change: (record: ExperienceRecord, user: User) => Promise<T>,
  ): Promise<T> {
    return step(request, async ({ record }) => {
      if (record.interactionEvent === 'ForgotPassword') {
        throw errors.experience(
          'session.not_supported_for_forgot_password',
          'a forgot-password experience has no second-factor step',
        );
      }
      return change(record, await submission.identifiedUser(record));
    });
  }

  function messageContext(
    interaction: Interaction,
    record: ExperienceRecord,
    request: ExperienceRequest,
  ): MessageEventContext {
    const clientId = interaction.params.client_id;
    return {
      ip: request.ip,
      ...(request.userAgent && { userAgent: request.userAgent }),
      interactionEvent: record.interactionEvent,
      sessionId: interaction.jti,
      ...(typeof clientId === 'string' && { applicationId: clientId }),
    };
  }

  async function applicationName(interaction: Interaction): Promise<string | undefined> {
    const clientId = interaction.params.client_id;
    return typeof clientId === 'string' ? (await deps.repositories.applications.findById(clientId))?.name : undefined;
  }

  return {
    /** The enterprise connectors of an email's domain (`GET /api/experience/sso-connectors`); none while single sign-on is off. */
    ssoConnectorsFor: (email: string) => connectorFlows.ssoForEmail(email),

    /** Sets the cookie that binds the browser's Experience API calls to this interaction (the sign-in page calls it). */
    bindCookie(ctx: Context, interaction: { uid: string; exp: number }): void {
      setExperienceCookie(ctx, deps.baseUrl, interaction);
    },

    /** `PUT /api/experience`: a new experience, replacing whatever this interaction had (verifications included). */
    async start(request: ExperienceRequest, interactionEvent: InteractionEvent): Promise<void> {
      const interaction = await findInteraction(deps.provider, request.uid);
      assertEventAllowed(await deps.signInExperience.get(), interactionEvent);
      const record: ExperienceRecord = { interactionEvent, verifications: [], profile: {} };
      await store.save(interaction.uid, record, remainingSeconds(interaction));
    },

    /**
     * `PUT /api/experience/interaction-event`: sign-in ↔ registration. Verifications of identifiers and
     * connectors carry over; the profile being built does not, nor an existing account identified for sign-in (a
     * registration must not submit as it), nor anything recorded for the identified account: second-factor
     * proofs, new factors, a skipped enrolment and a connector sign-in belong to the event they were made in.
     */
    setEvent: (request: ExperienceRequest, interactionEvent: InteractionEvent) =>
      step(request, async ({ record }) => {
        assertEventAllowed(await deps.signInExperience.get(), interactionEvent);
        assertEventSwitch(record.interactionEvent, interactionEvent);
        if (record.interactionEvent === interactionEvent) return;
        record.profile = {};
        delete record.connectorRegistration;
        dropAccountState(record);
        if (interactionEvent === 'Register' && !record.userCreated) identifyAs(record, undefined);
        record.interactionEvent = interactionEvent;
      }),

    verifyPassword: (request: ExperienceRequest, identifier: ExperienceIdentifier, password: string) =>
      step(request, async ({ record }) => {
        await connectorFlows.assertNotSsoOnly(identifier);
        return { verificationId: (await verifications.password(record, identifier, password)).id };
      }),

    /** Sends a code (`interactionEvent` picks the message) and answers the verification that will check it. */
    sendCode: (request: ExperienceRequest, identifier: Recipient, interactionEvent: InteractionEvent) =>
      step(request, async ({ interaction, record }) => {
        if (interactionEvent !== 'ForgotPassword') await connectorFlows.assertNotSsoOnly(identifier);
        const registrationOff = (await deps.signInExperience.get()).signInMode === 'SignIn';
        const verification = await verifications.sendCode(record, identifier, interactionEvent, {
          registrationOff,
          applicationName: await applicationName(interaction),
          context: messageContext(interaction, record, request),
          senders: { ip: request.ip, interaction: interaction.uid },
        });
        return { verificationId: verification.id };
      }),

    verifyCode: (request: ExperienceRequest, identifier: Recipient, verificationId: string, code: string) =>
      step(request, async ({ record }) => ({
        verificationId: (await verifications.verifyCode(record, identifier, verificationId, code)).id,
      })),

    /**
     * `POST /api/experience/identification`: `created` when a registration created the account (User.Created
     * and the organizations it joined just in time are published once it is stored).
     */
    identify: (request: ExperienceRequest, verificationId?: string, options: { linkSocialIdentity?: boolean } = {}) =>
      step(request, async ({ record, save }): Promise<{ created: boolean }> => {
        if (connectorFlows.owns(record, verificationId) && record.interactionEvent !== 'Register') {
          await connectorFlows.identify(record, verificationId!, options.linkSocialIdentity);
          return { created: false };
        }
        // A registration through a social identity that was refused for a missing profile goes on once completed.
        const connectorRegistration = verificationId ?? record.connectorRegistration;
        if (connectorFlows.owns(record, connectorRegistration)) {
          await connectorFlows.register(record, connectorRegistration!, save);
          return { created: true };
        }
        if (record.interactionEvent !== 'Register') {
          await identification.identify(record, verificationId);
          return { created: false };
        }
        await identification.register(record, verificationId, save);
        return { created: true };
      }),

    /** `POST /api/experience/profile`; during sign-in it completes the identified account. */
    addProfile: (request: ExperienceRequest, input: ProfileInput) =>
      step(request, async ({ record }) => {
        if (record.interactionEvent === 'ForgotPassword') {
          throw errors.experience(
            'session.not_supported_for_forgot_password',
            'a forgot-password experience only sets a new password',
          );
        }
        const user =
          record.interactionEvent === 'SignIn' || record.userId ? await submission.identifiedUser(record) : undefined;
        await profiles.set(record, input, user);
      }),

    /** `PUT /api/experience/profile/password`: the new password of a forgot-password experience. */
    resetPassword: (request: ExperienceRequest, password: string) =>
      step(request, async ({ record }) => {
        if (record.interactionEvent !== 'ForgotPassword') {
          throw errors.experience(
            'session.invalid_interaction_type',
            'only a forgot-password experience resets a password',
          );
        }
        await profiles.reset(record, password, await submission.identifiedUser(record));
      }),

    /**
     * `POST /api/experience/submit`: commits, then hands the result to the OIDC interaction (as
     * `provider.interactionResult` does) and answers where the browser goes next: back into the authorization
     * flow, or, after a password reset, to the sign-in page of the same interaction.
     */
    submit: (request: ExperienceRequest) =>
      store.serialized(request.uid, async (): Promise<{ redirectTo: string }> => {
        const { interaction, record } = await open(request);
        const { value: user, events: changes } = await deps.operations.collect(async () =>
          connectorFlows.commit(record, await submission.commit(record)),
        );
        let redirectTo = `${deps.baseUrl}/interaction/${interaction.uid}`;
        if (record.interactionEvent !== 'ForgotPassword') {
          interaction.result = { login: { accountId: user.id } };
          await interaction.save(remainingSeconds(interaction));
          redirectTo = interaction.returnTo;
        }
        await store.remove(interaction.uid);
        await events.submitted(interaction, request, record.interactionEvent, user, changes);
        return { redirectTo };
      }),

    /** Starts a sign-in through a social or enterprise connector: where to send the browser, and the verification. */
    connectorAuthorization: (
      request: ExperienceRequest,
      type: ConnectorType,
      connectorId: string,
      target: { state?: string; redirectUri: string },
    ) => step(request, ({ record }) => connectorFlows.authorize(record, type, connectorId, target)),

    /**
     * Checks the upstream's callback parameters against the verification; without a connector and verification
     * named (the pages' callback), against the sign-in of that type this experience started last.
     */
    verifyConnector: (
      request: ExperienceRequest,
      type: ConnectorType,
      named: { connectorId: string; verificationId: string } | undefined,
      connectorData: Record<string, string>,
    ) =>
      step(request, async ({ record }) => {
        const latest = connectorFlows.latest(record, type);
        const { connectorId, verificationId } = named ?? {
          connectorId: latest?.connectorId,
          verificationId: latest?.id,
        };
        if (!connectorId || !verificationId) {
          throw errors.experience(
            'session.verification_session_not_found',
            'no sign-in through a connector was started here',
          );
        }
        return {
          verificationId: await connectorFlows.verify(record, type, connectorId, verificationId, connectorData),
        };
      }),

    /** `POST /verification/totp/secret`: a new TOTP secret for the identified account, shown once. */
    newTotpSecret: (request: ExperienceRequest) =>
      withUser(request, (record, user) => mfaStep.newTotpSecret(record, user)),

    /** `POST /verification/totp/verify`: confirms a new secret (`verificationId`), or checks the account's app. */
    verifyTotp: (request: ExperienceRequest, code: string, verificationId?: string) =>
      withUser(request, async (record, user) => ({
        verificationId: await mfaStep.verifyTotp(record, user, code, verificationId),
      })),

    /** `POST /verification/backup-code/generate`: ten new backup codes, shown once. */
    newBackupCodes: (request: ExperienceRequest) =>
      withUser(request, (record, user) => mfaStep.newBackupCodes(record, user)),

    /** `POST /verification/backup-code/verify`: spends one of the account's backup codes. */
    verifyBackupCode: (request: ExperienceRequest, code: string) =>
      withUser(request, async (record, user) => ({
        verificationId: await mfaStep.verifyBackupCode(record, user, code),
      })),

    /** `POST /verification/web-authn/registration`: options to create a passkey for the identified account. */
    newWebAuthnRegistration: (request: ExperienceRequest) =>
      withUser(request, (record, user) => mfaStep.webAuthnRegistration(record, user)),

    /** `POST /verification/web-authn/registration/verify`: the new passkey, stored at submit once bound. */
    verifyWebAuthnRegistration: (request: ExperienceRequest, verificationId: string, payload: RegistrationPayload) =>
      withUser(request, async (record, user) => ({
        verificationId: await mfaStep.verifyWebAuthnRegistration(
          record,
          user,
          verificationId,
          payload,
          request.userAgent,
        ),
      })),

    /** `POST /verification/web-authn/authentication`: a challenge for one of the account's passkeys. */
    newWebAuthnAuthentication: (request: ExperienceRequest) =>
      withUser(request, (record, user) => mfaStep.webAuthnAuthentication(record, user)),

    /** `POST /verification/web-authn/authentication/verify`: the passkey's assertion, accepted once. */
    verifyWebAuthnAuthentication: (
      request: ExperienceRequest,
      verificationId: string,
      payload: AuthenticationPayload,
    ) =>
      withUser(request, async (record, user) => ({
        verificationId: await mfaStep.verifyWebAuthnAuthentication(record, user, verificationId, payload),
      })),

    /** `POST /profile/mfa`: the new factor a verification set up is stored at submit. */
    bindMfa: (request: ExperienceRequest, type: 'Totp' | 'BackupCode' | 'WebAuthn', verificationId: string) =>
      withUser(request, (record, user) => mfaStep.bind(record, user, type, verificationId)),

    /** The second factors the identified account can prove, and whether it may skip enrolling one (the pages' view). */
    mfaStatus: (request: ExperienceRequest) => withUser(request, (_record, user) => mfaStep.status(user)),

    /** `POST /profile/mfa/mfa-skipped`: no second factor now, where the policy allows it. */
    skipMfa: (request: ExperienceRequest) => withUser(request, (record, user) => mfaStep.skip(record, user)),

    /** `GET /api/experience/interaction`: the experience as far as it went, without secrets. */
    async state(request: ExperienceRequest): Promise<ExperienceState> {
      const { record } = await open(request);
      return {
        interactionEvent: record.interactionEvent,
        ...(record.userId && { userId: record.userId }),
        profile: publicProfile(record.profile),
        verificationRecords: record.verifications.map(({ id, type, identifier, verified }) => ({
          id,
          type,
          identifier,
          verified,
        })),
      };
    },
  };
}

export type Experience = ReturnType<typeof createExperience>;
