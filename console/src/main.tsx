import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import './styles.css';
import { completeSignIn, currentSession, isConsoleAdmin, signOut, startSignIn, type Session } from './auth.ts';
import { onSessionExpired } from './api.ts';
import { config } from './config.ts';
import { Layout } from './components/layout.tsx';
import { ErrorText, Loading } from './components/feedback.tsx';
import { PAGES } from './pages.ts';
import { match, navigate, useRoutePath } from './router.ts';
import { SetupPage } from './setup.tsx';

/** A screen outside the console's frame: sign in, signed out, not an admin, setup. */
function Gate(props: { title: string; children: preact.ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · Identity console`;
  }, [props.title]);
  return (
    <main class="gate" id="main">
      <div class="card">
        <p class="brand">Identity console</p>
        <h1>{props.title}</h1>
        {props.children}
      </div>
    </main>
  );
}

function SignIn(props: { notice?: string }) {
  const [error, setError] = useState<unknown>();
  return (
    <Gate title="Sign in to the console">
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      <p>Console admins sign in with their account on this service.</p>
      <button
        type="button"
        onClick={() => startSignIn(location.pathname.endsWith('/signed-out') ? '/' : currentRoute()).catch(setError)}
      >
        Sign in
      </button>
      <ErrorText error={error} />
    </Gate>
  );
}

function currentRoute(): string {
  const path = location.pathname.slice(new URL(config.home).pathname.length) || '/';
  return `${path}${location.search}`;
}

function Callback(props: { onSignedIn: (session: Session | undefined) => void }) {
  const [error, setError] = useState<unknown>();
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    completeSignIn(new URL(location.href)).then((returnTo) => {
      props.onSignedIn(currentSession());
      navigate(returnTo.startsWith('/') && !returnTo.startsWith('/callback') ? returnTo : '/', { replace: true });
    }, setError);
  }, []);
  if (!error)
    return (
      <Gate title="Signing in">
        <Loading what="your session" />
      </Gate>
    );
  return (
    <Gate title="Sign-in failed">
      <ErrorText error={error} />
      <button type="button" onClick={() => startSignIn('/')}>
        Sign in again
      </button>
    </Gate>
  );
}

function NotAdmin(props: { session: Session }) {
  return (
    <Gate title="No access to the console">
      <p class="error" role="alert">
        You are signed in as <strong>{props.session.name}</strong>, who is not a console admin. The console is only for
        users holding the Console admin role: ask an administrator to grant it, or sign out and sign in with another
        account.
      </p>
      <button type="button" onClick={() => signOut(props.session)}>
        Sign out
      </button>
    </Gate>
  );
}

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>There is no console page at this address.</p>
    </>
  );
}

function Console(props: { session: Session; path: string }) {
  const [, first = '', ...rest] = props.path.split('/');
  const page = PAGES.find((candidate) => candidate.id === first);
  const subPath = `/${rest.join('/')}`;
  let content: preact.ComponentChildren = <NotFound />;
  if (page) {
    for (const [pattern, Component] of Object.entries(page.routes)) {
      const params = match(`/${pattern}`, subPath);
      if (params) {
        content = <Component params={params} />;
        break;
      }
    }
  }
  const mainFocus = useRef(false);
  useEffect(() => {
    document.title = `${page?.title ?? 'Not found'} · Identity console`;
    // After a navigation (not the first render) the focus goes to the new content, as a page load would put it.
    if (mainFocus.current) document.getElementById('main')?.focus();
    mainFocus.current = true;
  }, [props.path]);
  return (
    <Layout pages={PAGES} current={page?.id} userName={props.session.name} onSignOut={() => signOut(props.session)}>
      {content}
    </Layout>
  );
}

function App() {
  const path = useRoutePath();
  const [session, setSession] = useState(currentSession);
  const [expired, setExpired] = useState(false);
  useEffect(
    () =>
      onSessionExpired(() => {
        setSession(undefined);
        setExpired(true);
      }),
    [],
  );
  useEffect(() => {
    if (session && path === '/') navigate(`/${PAGES[0]!.id}`, { replace: true });
  }, [session, path]);

  if (path === '/callback') return <Callback onSignedIn={setSession} />;
  if (path === '/setup') return <SetupPage />;
  if (path === '/signed-out' && !session) {
    return <SignIn notice="You are signed out." />;
  }
  if (!session) return <SignIn notice={expired ? 'Your session ended: sign in again.' : undefined} />;
  if (!isConsoleAdmin(session)) return <NotAdmin session={session} />;
  return <Console session={session} path={path} />;
}

// Tokens are issued for the service's canonical address: a page opened under another host name moves there first.
if (location.origin !== new URL(config.baseUrl).origin) {
  location.replace(
    `${config.home}${location.pathname.slice(new URL(config.home).pathname.length)}${location.search}${location.hash}`,
  );
} else {
  render(<App />, document.getElementById('app')!);
}
