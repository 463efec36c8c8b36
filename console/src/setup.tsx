import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { startSignIn } from './auth.ts';
import { ErrorText, Loading, useAction, useLoad } from './components/feedback.tsx';
import { TextField } from './components/field.tsx';
import { consolePath } from './config.ts';

/** The token of the link printed at start travels in the fragment: read once, then taken off the address bar. */
function takeToken(): string {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  if (location.hash) history.replaceState(null, '', `${consolePath}/setup`);
  return token;
}

/** First start: the operator chooses the first console admin's username and password with the one-time link. */
export function SetupPage() {
  const [token] = useState(takeToken);
  const state = useLoad(() => api<{ adminExists: boolean }>('GET', '/console/setup'), []);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const [created, setCreated] = useState<string>();
  const action = useAction();
  useEffect(() => {
    document.title = 'Set up · Identity console';
  }, []);

  let content: ComponentChildren;
  if (state.loading) content = <Loading what="the setup state" />;
  else if (state.error) content = <ErrorText error={state.error} />;
  else if (created) {
    content = (
      <>
        <p class="notice" role="status">
          The console admin <strong>{created}</strong> is ready. This setup link no longer works.
        </p>
        <button type="button" onClick={() => startSignIn('/')}>
          Sign in
        </button>
      </>
    );
  } else if (state.data?.adminExists) {
    content = (
      <>
        <p role="alert" class="error">
          Setup is already complete: a console admin exists, so this link no longer works.
        </p>
        <button type="button" onClick={() => startSignIn('/')}>
          Sign in
        </button>
      </>
    );
  } else if (!token) {
    content = (
      <p role="alert" class="error">
        This address carries no setup token. Open the whole link the service printed when it started.
      </p>
    );
  } else {
    content = (
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setMismatch(password !== confirm);
          if (password !== confirm) return;
          const user = await action.run(() =>
            api<{ username: string }>('POST', '/console/setup', { body: { token, username, password } }),
          );
          if (user) setCreated(user.username);
        }}
      >
        <p>Choose the username and password of the first console admin. This link works once.</p>
        <TextField
          label="Username"
          value={username}
          onInput={setUsername}
          autoComplete="username"
          required
          error={action.fieldError('username')}
        />
        <TextField
          label="Password"
          type="password"
          value={password}
          onInput={setPassword}
          autoComplete="new-password"
          required
          error={action.fieldError('password') ?? passwordProblems(action.error)}
        />
        <TextField
          label="Confirm password"
          type="password"
          value={confirm}
          onInput={setConfirm}
          autoComplete="new-password"
          required
          error={mismatch ? 'The two passwords differ.' : undefined}
        />
        <button type="submit" disabled={action.pending}>
          Create admin
        </button>
        <ErrorText error={passwordProblems(action.error) ? undefined : action.actionError(['username', 'password'])} />
      </form>
    );
  }
  return (
    <main class="gate" id="main">
      <div class="card">
        <p class="brand">Identity console</p>
        <h1>Set up the console</h1>
        {content}
      </div>
    </main>
  );
}

/** The password policy's verdict (422 `password.rejected`) belongs to the password field. */
function passwordProblems(error: unknown): string | undefined {
  const data = error as { code?: string; data?: { problems?: Array<{ message: string }> } } | undefined;
  if (data?.code !== 'password.rejected') return undefined;
  const problems = data.data?.problems?.map((problem) => problem.message);
  return problems?.length ? `The password ${problems.join('; ')}.` : undefined;
}
