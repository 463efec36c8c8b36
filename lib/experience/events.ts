import type { EventBus } from '../events/bus.ts';
import type { ApplicationSummary, ExperienceDataContext } from '../events/payloads.ts';
import type { JitMembership } from '../organizations/jit.ts';
import type { ApplicationsRepository } from '../applications/repository.ts';
import type { User } from '../users/repository.ts';
import type { Interaction } from './binding.ts';
import type { ExperienceRequest, InteractionEvent } from './types.ts';

const INTERACTION_EVENT_NAMES = {
  Register: 'PostRegister',
  SignIn: 'PostSignIn',
  ForgotPassword: 'PostResetPassword',
} as const satisfies Record<InteractionEvent, string>;

/**
 * The events of end-user flows, published only once what they announce is stored: interaction events with the
 * user (never a secret: the repository's public shape) and the application, data events with the context of
 * the flow they happened in.
 */
export function createExperienceEvents(deps: {
  bus: EventBus;
  repositories: { applications: ApplicationsRepository };
}) {
  const clientIdOf = (interaction: Interaction) => {
    const clientId = interaction.params.client_id;
    return typeof clientId === 'string' ? clientId : undefined;
  };

  function dataContext(
    interaction: Interaction,
    request: ExperienceRequest,
    event: InteractionEvent,
  ): ExperienceDataContext {
    return {
      interactionEvent: event,
      sessionId: interaction.jti,
      applicationId: clientIdOf(interaction),
      userAgent: request.userAgent,
      ip: request.ip,
    };
  }

  async function application(interaction: Interaction): Promise<ApplicationSummary | undefined> {
    const clientId = clientIdOf(interaction);
    const app = clientId ? await deps.repositories.applications.findById(clientId) : null;
    return app ? { id: app.id, type: app.type, name: app.name, description: app.description } : undefined;
  }

  return {
    /** A new account (Register identification), with the organizations it joined just in time. */
    async userCreated(
      interaction: Interaction,
      request: ExperienceRequest,
      user: User,
      memberships: JitMembership[],
    ): Promise<void> {
      await deps.bus.emitAll(dataContext(interaction, request, 'Register'), [
        { event: 'User.Created', payload: { data: user } },
        ...membershipDrafts(user.id, memberships),
      ]);
    },

    /** The end of a flow: the interaction event, then what changed (profile, memberships). */
    async submitted(
      interaction: Interaction,
      request: ExperienceRequest,
      event: InteractionEvent,
      outcome: { user: User; userChanged: boolean; memberships: JitMembership[] },
    ): Promise<void> {
      const { user } = outcome;
      await deps.bus.emit(
        INTERACTION_EVENT_NAMES[event],
        { userId: user.id, user, application: await application(interaction) },
        {
          sessionId: interaction.jti,
          userIp: request.ip,
          userAgent: request.userAgent,
        },
      );
      await deps.bus.emitAll(dataContext(interaction, request, event), [
        ...(outcome.userChanged ? [{ event: 'User.Data.Updated' as const, payload: { data: user } }] : []),
        ...membershipDrafts(user.id, outcome.memberships),
      ]);
    },
  };
}

function membershipDrafts(userId: string, memberships: JitMembership[]) {
  return memberships.map(({ organization }) => ({
    event: 'Organization.Membership.Updated' as const,
    payload: { data: organization, organizationId: organization.id, addedUserIds: [userId] },
  }));
}
