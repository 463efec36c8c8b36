import type { Logger } from 'pino';
import type { EventBus } from '../events/bus.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { Settings } from '../settings.ts';
import { createVerificationCodes, type Recipient } from './codes.ts';
import { createConnectors } from './connectors/index.ts';
import { createBackgroundSends } from './background.ts';
import {
  createMessageRateLimit,
  createSenderBudgets,
  type MessageEventContext,
  type MessageSenders,
} from './rate-limit.ts';
import {
  readTemplatesDir,
  render,
  resolveTemplates,
  type CodePurpose,
  type MessagePurpose,
  type MessageTemplates,
} from './templates.ts';

export type { Recipient } from './codes.ts';
export type { MessageEventContext, MessageSenders } from './rate-limit.ts';
export { MESSAGE_PURPOSES, type MessagePurpose, type MessageTemplate, type MessageTemplates } from './templates.ts';

interface SendCodeInput {
  purpose: MessagePurpose;
  to: Recipient;
  /** Shown in the message (`{{applicationName}}`); defaults to the service's host. */
  applicationName?: string;
  /** Request context for Message.RateLimited. */
  context?: MessageEventContext;
  /**
   * `false` spends the budgets exactly as a send would (same 429s, same event) but sends and stores nothing: for
   * requests that must not reveal whether an account exists. Default `true`.
   */
  deliver?: boolean;
  /** Who asked: each named sender spends one message of its own budget first. */
  senders?: MessageSenders;
  /**
   * Answer once the budgets are spent and send afterwards, so that the answer takes the same time whether or not
   * the message is delivered; a failure is then logged instead of thrown. Default `false`.
   */
  inBackground?: boolean;
}

/** What the impersonation notice says, looked up once the exchange has been answered. */
interface ImpersonationNotice {
  applicationName: string;
  /** Who acted, when an actor token named them. */
  actorName: string | null;
  reason: string | null;
  issuedAt: number;
  expiresAt: number;
}

interface VerifyCodeInput {
  purpose: MessagePurpose;
  to: Recipient;
  code: string;
}

interface SendInvitationInput {
  /** The invitee's email address. */
  to: string;
  link: string;
  organizationName: string;
  inviterName?: string | null;
  /** More template placeholders, from the inviting request's message payload; they win over all but `link`. */
  variables?: Readonly<Record<string, string>>;
  context?: MessageEventContext;
}

/**
 * Verification codes and messages to end users. Every send takes one message from the recipient's budget and
 * its senders' first (429 `request.message_rate_limited`; for the recipient's, after publishing
 * Message.RateLimited once per window); connector failures are 502 `connector.general` or 503
 * `service.dependency_unavailable`, never 500 (or, sent in the background, a warning in the log).
 */
export interface Messaging {
  /** Sends a fresh code, which replaces any earlier one for the same purpose and recipient once it has gone out. */
  sendCode(input: SendCodeInput): Promise<void>;
  /**
   * Checks and spends a code; throws 400 `verification_code.code_mismatch`, `verification_code.expired`,
   * `verification_code.not_found` (never sent, already used or replaced) or 429 `verification_code.exceed_max_try`.
   */
  verifyCode(input: VerifyCodeInput): Promise<void>;
  /** Sends the OrganizationInvitation template to an email address (rate-limited the same way). */
  sendInvitation(input: SendInvitationInput): Promise<void>;
  /**
   * Tells a user their account was impersonated (the UserImpersonated template), in the background: `describe` (what
   * the message says) runs there, the message takes one from the recipient's budget, and a refusal or a failure of
   * any of it is logged, never thrown to the exchange.
   */
  sendImpersonationNotice(to: string, describe: () => Promise<ImpersonationNotice>): void;
}

export interface MessagingService extends Messaging {
  close(): Promise<void>;
}

/** How long closing waits for messages still being sent in the background. */
const BACKGROUND_DRAIN_MS = 10_000;

/** A time as a person reads it in a message: `2026-12-02 14:05 UTC`. */
const readableTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** A value with a line break must not start a new header line. */
const oneLine = (subject: string) => subject.replace(/[\r\n]+/g, ' ');

function asCodePurpose(purpose: MessagePurpose): CodePurpose {
  if (purpose === 'OrganizationInvitation')
    throw new TypeError('OrganizationInvitation messages carry a link, not a code: use sendInvitation');
  if (purpose === 'UserImpersonated')
    throw new TypeError('UserImpersonated messages carry no code: use sendImpersonationNotice');
  return purpose;
}

/**
 * Builds the messaging of one service instance. Throws a ConfigurationError at start-up for unreadable or
 * invalid templates, and in production without real connectors.
 */
export async function createMessaging(deps: {
  settings: Settings;
  logger: Logger;
  kv: KeyValueStore;
  bus: EventBus;
  templates?: MessageTemplates;
}): Promise<MessagingService> {
  const { settings, logger } = deps;
  const fromDir = settings.MESSAGE_TEMPLATES_DIR ? await readTemplatesDir(settings.MESSAGE_TEMPLATES_DIR) : undefined;
  const templates = resolveTemplates([
    { source: 'MESSAGE_TEMPLATES_DIR', templates: fromDir },
    { source: 'messageTemplates', templates: deps.templates },
  ]);
  const connectors = createConnectors(settings, logger);
  const codes = createVerificationCodes({ kv: deps.kv, ttlSeconds: settings.VERIFICATION_CODE_TTL_SECONDS });
  const rateLimit = createMessageRateLimit({
    kv: deps.kv,
    bus: deps.bus,
    policy: { count: settings.MESSAGE_RATE_LIMIT_COUNT, windowSeconds: settings.MESSAGE_RATE_LIMIT_WINDOW_SECONDS },
  });
  const senderBudgets = createSenderBudgets({
    kv: deps.kv,
    policy: {
      perIp: settings.MESSAGE_RATE_LIMIT_PER_IP,
      perInteraction: settings.MESSAGE_RATE_LIMIT_PER_INTERACTION,
      perUser: settings.MESSAGE_RATE_LIMIT_PER_USER,
      windowSeconds: settings.MESSAGE_RATE_LIMIT_WINDOW_SECONDS,
    },
  });
  const background = createBackgroundSends(logger);
  const serviceName = new URL(settings.baseUrl).host;
  const sendKey = (purpose: CodePurpose, to: Recipient) => `${purpose}:${to.type}:${to.value}`;

  /** Sends a new code; it replaces the previous one only once it has gone out. */
  async function deliverCode(purpose: CodePurpose, to: Recipient, applicationName: string | undefined): Promise<void> {
    const issued = codes.issue(purpose, to);
    const template = templates[purpose];
    const values = {
      code: issued.code,
      applicationName: applicationName ?? serviceName,
      recipient: to.value,
      expiresInMinutes: String(Math.ceil(codes.ttlSeconds / 60)),
    };
    const connector = to.type === 'email' ? connectors.email : connectors.phone;
    await connector.send({
      channel: to.type,
      to: to.value,
      purpose,
      subject: oneLine(render(template.subject, values)),
      text: render(to.type === 'email' ? template.text : template.sms, values),
      html: render(template.html, values, 'html'),
    });
    await issued.commit();
  }

  return {
    async sendCode({ purpose, to, applicationName, context, deliver = true, senders, inBackground = false }) {
      const codePurpose = asCodePurpose(purpose);
      // The recipient's budget first, so that the 11th message to one address is refused (and announced) for it.
      await rateLimit.consume(purpose, to, context);
      await senderBudgets.consume(senders);
      if (!deliver) return;
      if (!inBackground) {
        await deliverCode(codePurpose, to, applicationName);
        return;
      }
      background.run(sendKey(codePurpose, to), () => deliverCode(codePurpose, to, applicationName), {
        purpose,
        channel: to.type,
      });
    },

    async verifyCode({ purpose, to, code }) {
      const codePurpose = asCodePurpose(purpose);
      // A code still on its way (sent in the background) is in force as soon as it has gone out.
      await background.settled(sendKey(codePurpose, to));
      await codes.verify(codePurpose, to, code);
    },

    async sendInvitation({ to, link, organizationName, inviterName, variables, context }) {
      const recipient: Recipient = { type: 'email', value: to.toLowerCase() };
      await rateLimit.consume('OrganizationInvitation', recipient, context);
      const template = templates.OrganizationInvitation;
      const values = {
        organizationName,
        inviterName: inviterName ?? '',
        invitedBy: inviterName ? ` by ${inviterName}` : '',
        recipient: recipient.value,
        ...variables,
        link,
      };
      await connectors.email.send({
        channel: 'email',
        to: recipient.value,
        purpose: 'OrganizationInvitation',
        subject: oneLine(render(template.subject, values)),
        text: render(template.text, values),
        html: render(template.html, values, 'html'),
      });
    },

    sendImpersonationNotice(to, describe) {
      const recipient: Recipient = { type: 'email', value: to.toLowerCase() };
      const template = templates.UserImpersonated;
      background.run(
        `UserImpersonated:email:${recipient.value}`,
        async () => {
          const { applicationName, actorName, reason, issuedAt, expiresAt } = await describe();
          const values = {
            applicationName,
            actorName: actorName ?? '',
            actedBy: actorName ? ` by ${actorName}` : '',
            reason: reason ?? '',
            reasonGiven: reason ? ` The reason given: ${reason}.` : '',
            issuedAt: readableTime(issuedAt),
            expiresAt: readableTime(expiresAt),
            recipient: recipient.value,
          };
          await rateLimit.consume('UserImpersonated', recipient);
          await connectors.email.send({
            channel: 'email',
            to: recipient.value,
            purpose: 'UserImpersonated',
            subject: oneLine(render(template.subject, values)),
            text: render(template.text, values),
            html: render(template.html, values, 'html'),
          });
        },
        { purpose: 'UserImpersonated', channel: 'email' },
      );
    },

    async close() {
      await background.idle(BACKGROUND_DRAIN_MS);
      await connectors.close();
    },
  };
}
