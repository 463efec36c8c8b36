import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useId } from 'preact/hooks';

/** What a control needs to be labelled and described: spread it on the input. */
export interface ControlProps {
  id: string;
  'aria-invalid'?: 'true';
  'aria-describedby'?: string;
}

interface FieldProps {
  label: string;
  /** What the API said about this field, shown under it and read after its name. */
  error?: string | undefined;
  hint?: ComponentChildren;
  children: (control: ControlProps) => ComponentChildren;
}

/** A labelled control with an optional hint and the API's error for it, tied by `aria-describedby`. */
export function Field(props: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [props.hint ? hintId : '', props.error ? errorId : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children({
        id,
        ...(props.error && { 'aria-invalid': 'true' }),
        ...(describedBy && { 'aria-describedby': describedBy }),
      })}
      {props.hint && (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="field-error" id={errorId}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** The input attributes the console's text fields use. */
interface InputProps {
  type?: 'text' | 'password' | 'number' | 'search' | 'email' | 'url';
  required?: boolean;
  autoComplete?: string;
  placeholder?: string;
  min?: string;
  max?: string;
  inputMode?: 'numeric' | 'text' | 'email' | 'url';
  name?: string;
  readOnly?: boolean;
}

export function TextField(
  props: {
    label: string;
    value: string;
    onInput: (value: string) => void;
    error?: string | undefined;
    hint?: ComponentChildren;
  } & InputProps,
) {
  const { label, value, onInput, error, hint, ...rest } = props;
  return (
    <Field label={label} error={error} hint={hint}>
      {(control) => {
        // Preact types each input type apart; these attributes fit every type the console uses.
        const attributes = { ...rest, ...control, value } as InputHTMLAttributes<HTMLInputElement>;
        return <input {...attributes} onInput={(event) => onInput(event.currentTarget.value)} />;
      }}
    </Field>
  );
}

/** Several values, one per line (redirect URIs, origins). */
export function LinesField(props: {
  label: string;
  value: string[];
  onInput: (value: string[]) => void;
  error?: string | undefined;
  hint?: ComponentChildren;
}) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint}>
      {(control) => (
        <textarea
          {...control}
          rows={Math.max(2, props.value.length + 1)}
          value={props.value.join('\n')}
          onInput={(event) =>
            props.onInput(
              event.currentTarget.value
                .split('\n')
                .map((line) => line.trim())
                .filter((line, index, all) => line || index < all.length - 1),
            )
          }
        />
      )}
    </Field>
  );
}

export function SelectField<T extends string>(props: {
  label: string;
  value: T;
  options: ReadonlyArray<{ value: T; label: string }>;
  onChange: (value: T) => void;
  error?: string | undefined;
  hint?: ComponentChildren;
}) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint}>
      {(control) => (
        <select {...control} value={props.value} onChange={(event) => props.onChange(event.currentTarget.value as T)}>
          {props.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function CheckboxField(props: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  error?: string | undefined;
  hint?: ComponentChildren;
  disabled?: boolean;
}) {
  const id = useId();
  const describedBy =
    [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field checkbox">
      <input
        type="checkbox"
        id={id}
        checked={props.checked}
        disabled={props.disabled}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy}
        onChange={(event) => props.onChange(event.currentTarget.checked)}
      />
      <label for={id}>{props.label}</label>
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/**
 * An on/off setting that acts at once: a button with the `switch` role. When disabled, the reason is its
 * description, so a screen reader says why.
 */
export function Switch(props: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  description?: ComponentChildren;
  error?: string | undefined;
  busy?: boolean;
}) {
  const id = useId();
  const describedBy =
    [props.description ? `${id}-description` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ') ||
    undefined;
  return (
    <div class="field switch-field">
      <div class="switch-row">
        <span id={`${id}-label`} class="switch-label">
          {props.label}
        </span>
        <button
          type="button"
          role="switch"
          class="switch"
          aria-checked={props.checked ? 'true' : 'false'}
          aria-labelledby={`${id}-label`}
          aria-describedby={describedBy}
          disabled={props.disabled || props.busy}
          aria-invalid={props.error ? 'true' : undefined}
          onClick={() => props.onChange(!props.checked)}
        >
          <span class="switch-thumb" aria-hidden="true" />
        </button>
      </div>
      {props.description && (
        <p class="hint" id={`${id}-description`}>
          {props.description}
        </p>
      )}
      {props.error && (
        <p class="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}
