import { useId } from 'preact/hooks';
import {
  DATA_EVENTS,
  EXCEPTION_EVENTS,
  IMPERSONATION_EVENTS,
  INTERACTION_EVENTS,
} from '../../../../lib/events/catalogue.ts';

const GROUPS = [
  {
    title: 'Interaction events',
    hint: 'End users signing up, signing in, resetting their password.',
    events: INTERACTION_EVENTS,
  },
  { title: 'Data events', hint: 'Changes to users, roles, scopes and organizations.', events: DATA_EVENTS },
  { title: 'Exception events', hint: 'Lockouts, rate limits, revoked grants.', events: EXCEPTION_EVENTS },
  {
    title: 'Impersonation events',
    hint: 'A user impersonated through token exchange, an impersonation revoked.',
    events: IMPERSONATION_EVENTS,
  },
] as const;

/** The events a hook subscribes to, grouped as the catalogue groups them; each group can be taken whole. */
export function EventPicker(props: {
  value: string[];
  onChange: (events: string[]) => void;
  error?: string | undefined;
}) {
  const id = useId();
  const chosen = new Set(props.value);
  const toggle = (events: readonly string[], on: boolean) => {
    const next = new Set(chosen);
    for (const event of events) {
      if (on) next.add(event);
      else next.delete(event);
    }
    props.onChange([...next]);
  };
  return (
    <div
      class="field event-picker"
      role="group"
      aria-labelledby={`${id}-label`}
      aria-describedby={props.error ? `${id}-error` : undefined}
    >
      <p class="group-label" id={`${id}-label`}>
        Events
      </p>
      {GROUPS.map((group) => {
        const all = group.events.every((event) => chosen.has(event));
        return (
          <fieldset key={group.title}>
            <legend>{group.title}</legend>
            <p class="hint">{group.hint}</p>
            <label class="check all">
              <input
                type="checkbox"
                checked={all}
                onChange={(event) => toggle(group.events, event.currentTarget.checked)}
              />
              All {group.title.toLowerCase()}
            </label>
            <div class="checks">
              {group.events.map((event) => (
                <label class="check" key={event}>
                  <input
                    type="checkbox"
                    checked={chosen.has(event)}
                    onChange={(change) => toggle([event], change.currentTarget.checked)}
                  />
                  {event}
                </label>
              ))}
            </div>
          </fieldset>
        );
      })}
      {props.error && (
        <p class="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}
