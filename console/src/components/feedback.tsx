import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';

/** An error next to what caused it, announced when it appears. */
export function ErrorText(props: { error: unknown; id?: string }) {
  if (!props.error) return null;
  const error = props.error;
  const message =
    error instanceof ApiError
      ? `${error.message} (${error.code})`
      : error instanceof Error
        ? error.message
        : String(error);
  return (
    <p class="error" role="alert" id={props.id}>
      {message}
    </p>
  );
}

export function Loading(props: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {props.what}…
    </p>
  );
}

/**
 * An action the user starts (save, create, rotate): whether it runs and how it failed, so the error is shown next
 * to its button and the fields it names.
 */
export function useAction() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = useCallback(async <T,>(work: () => Promise<T>): Promise<T | undefined> => {
    setPending(true);
    setError(undefined);
    try {
      return await work();
    } catch (caught) {
      setError(caught);
      return undefined;
    } finally {
      setPending(false);
    }
  }, []);
  const apiError = error instanceof ApiError ? error : undefined;
  return {
    pending,
    error,
    run,
    reset: () => setError(undefined),
    /** The API's words about one body field. */
    fieldError: (field: string) => apiError?.fieldError(field),
    /** The error to show by the button: not when the fields already show all of it. */
    actionError: (fields: readonly string[] = []) => (apiError?.isAboutFields(fields) ? undefined : error),
  };
}

/** Data a page shows: loaded on mount and whenever `deps` change, reloadable after a change. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, version]);
  return {
    ...state,
    reload: () => setVersion((value) => value + 1),
    set: (data: T) => setState({ data, loading: false }),
  };
}

export function Section(props: { title: string; children: ComponentChildren; description?: ComponentChildren }) {
  const id = useId();
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      {props.description && <p class="hint">{props.description}</p>}
      {props.children}
    </section>
  );
}
