import { useState } from 'preact/hooks';
import { CheckboxField, LinesField, TextField } from '../../components/field.tsx';
import { EventPicker } from './events.tsx';
import { headerLines, parseHeaderLines, type Hook } from './types.ts';

export interface HookDraft {
  name: string;
  url: string;
  events: string[];
  headers: string[];
  enabled: boolean;
  /** `ordering: "entity"`. */
  ordered: boolean;
}

export const draftOf = (hook?: Hook): HookDraft => ({
  name: hook?.name ?? '',
  url: hook?.config.url ?? '',
  events: hook?.events ?? [],
  headers: headerLines(hook?.config.headers),
  enabled: hook?.enabled ?? true,
  ordered: hook?.ordering === 'entity',
});

/** The body of a create or update: what the form holds. */
export const bodyOf = (draft: HookDraft) => ({
  name: draft.name,
  events: draft.events,
  enabled: draft.enabled,
  ordering: draft.ordered ? 'entity' : 'none',
  config: { url: draft.url, headers: parseHeaderLines(draft.headers) },
});

export const HOOK_FIELDS = ['name', 'events', 'config', 'enabled', 'ordering'];

/** The fields of a hook, each with what the API said about it. */
export function HookFields(props: {
  draft: HookDraft;
  onChange: (draft: HookDraft) => void;
  fieldError: (field: string) => string | undefined;
}) {
  const { draft, onChange, fieldError } = props;
  return (
    <>
      <TextField
        label="Name"
        value={draft.name}
        onInput={(name) => onChange({ ...draft, name })}
        required
        error={fieldError('name')}
      />
      <TextField
        label="Endpoint URL"
        type="url"
        value={draft.url}
        onInput={(url) => onChange({ ...draft, url })}
        required
        placeholder="https://example.com/webhooks/identity"
        error={fieldError('config.url')}
        hint="Deliveries are signed POST requests (Standard Webhooks), retried with backoff until a 2xx."
      />
      <EventPicker
        value={draft.events}
        onChange={(events) => onChange({ ...draft, events })}
        error={fieldError('events')}
      />
      <LinesField
        label="Custom headers"
        value={draft.headers}
        onInput={(headers) => onChange({ ...draft, headers })}
        hint="One “Name: value” per line, sent with every delivery."
        error={fieldError('config.headers')}
      />
      <CheckboxField
        label="Deliver each entity's events in order"
        checked={draft.ordered}
        onChange={(ordered) => onChange({ ...draft, ordered })}
        error={fieldError('ordering')}
        hint="One delivery at a time per user, role or organization, in version order: a failing one holds back only that entity's later ones."
      />
      <CheckboxField
        label="Enabled"
        checked={draft.enabled}
        onChange={(enabled) => onChange({ ...draft, enabled })}
        error={fieldError('enabled')}
      />
    </>
  );
}

export function useHookDraft(hook?: Hook) {
  return useState<HookDraft>(() => draftOf(hook));
}

/** Codes the API answers about one field of a hook, which belong under that field. */
const FIELD_CODES: Record<string, string> = {
  'hook.missing_events': 'events',
  'hook.destination_not_allowed': 'config.url',
};

/** What to show under a field: the API's issues for it, or a code that is about it. */
export function hookFieldError(
  action: { error: unknown; fieldError: (field: string) => string | undefined },
  field: string,
): string | undefined {
  const code = (action.error as { code?: string } | undefined)?.code;
  if (code && FIELD_CODES[code] === field) return (action.error as Error).message;
  return action.fieldError(field);
}

/** Whether the error went under a field (then the action need not repeat it). */
export const hookErrorAtField = (error: unknown) =>
  Boolean(FIELD_CODES[(error as { code?: string } | undefined)?.code ?? '']);
