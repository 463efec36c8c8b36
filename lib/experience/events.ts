import type { EventBus, EventDraft } from '../events/bus.ts';
import type { DataEventName } from '../events/catalogue.ts';
import type { ApplicationSummary, ExperienceDataContext } from '../events/payloads.ts';
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
 * user (never a secret: the repository's public shape) and the application; the data events the libraries stated
 * during a step, with the context of the flow they happened in.
 */
export function createExperienceEvents(deps: {
  bus: EventBus;
  repositories: { applications: ApplicationsRepository };
}) {
  const clientIdOf = (interaction: Interaction) => {
    const clientId = interaction.params.client_id;
    return typeof clientId === 'string' ? clientId : undefined;
  };

  async function application(interaction: Interaction): Promise<ApplicationSummary | undefined> {
    const clientId = clientIdOf(interaction);
    const app = clientId ? await deps.repositories.applications.findById(clientId) : null;
    return app ? { id: app.id, type: app.type, name: app.name, description: app.description } : undefined;
  }

  /** What one step changed (a registration's new account, a sign-in's profile and memberships), if anything. */
  async function changed(
    interaction: Interaction,
    request: ExperienceRequest,
    event: InteractionEvent,
    drafts: readonly EventDraft<DataEventName>[],
  ): Promise<void> {
    if (drafts.length === 0) return;
    const context: ExperienceDataContext = {
      interactionEvent: event,
      sessionId: interaction.jti,
      applicationId: clientIdOf(interaction),
      userAgent: request.userAgent,
      ip: request.ip,
    };
    await deps.bus.emitAll(context, drafts);
  }

  return {
    changed,

    /** The end of a flow: the interaction event, then what the submission changed. */
    async submitted(
      interaction: Interaction,
      request: ExperienceRequest,
      event: InteractionEvent,
      user: User,
      drafts: readonly EventDraft<DataEventName>[],
    ): Promise<void> {
      await deps.bus.emit(
        INTERACTION_EVENT_NAMES[event],
        { userId: user.id, user, application: await application(interaction) },
        {
          sessionId: interaction.jti,
          userIp: request.ip,
          userAgent: request.userAgent,
        },
      );
      await changed(interaction, request, event, drafts);
    },
  };
}
