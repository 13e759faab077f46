// The public page (/signin and /setup, one bundle): asks the bridge whether setup is needed,
// whether OpenID Connect is on and whether this browser is already signed in, then shows the
// sign-in form, the first-run explanation, or the setup form. A signed-in browser goes on to
// `next` at once.
import { API, AuthState, PAGES } from '@overlay-companion/protocol';
import { useEffect } from 'react';
import { publicApi } from '../../net/api.js';
import { nextFromSearch } from '../../net/nextPath.js';
import { ErrorMessage } from '../common/Alert.js';
import { useLoad } from '../common/useLoad.js';
import { SetupForm } from './SetupForm.js';
import { SignInForm } from './SignInForm.js';
import { setupCodeFromHash } from './setupCode.js';

export interface PageLocation {
  pathname: string;
  search: string;
  hash: string;
}

const loadAuthState = () => publicApi.get(API.authState, AuthState);

function Body({ location, state }: { location: PageLocation; state: AuthState }) {
  const next = nextFromSearch(location.search);
  if (location.pathname === PAGES.setup) {
    if (!state.setup_needed) {
      return (
        <>
          <h1 className="auth__title">Setup is done</h1>
          <p>This bridge already has an admin.</p>
          <a className="button button--primary button--wide" href={PAGES.signIn}>
            Go to sign-in
          </a>
        </>
      );
    }
    return (
      <>
        <h1 className="auth__title">Create the admin</h1>
        <p className="auth__lead">
          The admin signs in to the viewer, creates tokens for AI clients and adds other people.
        </p>
        <SetupForm codeFromLink={setupCodeFromHash(location.hash)} />
      </>
    );
  }
  if (state.setup_needed) {
    return (
      <>
        <h1 className="auth__title">Sign in</h1>
        <p className="auth__notice" role="note">
          This bridge has no admin yet. Open the setup link that{' '}
          <code>overlay-companion serve</code> printed (or set <code>OC_ADMIN_USER</code> and{' '}
          <code>OC_ADMIN_PASSWORD</code> and restart).
        </p>
      </>
    );
  }
  return (
    <>
      <h1 className="auth__title">Sign in</h1>
      <SignInForm oidc={state.oidc} next={next} />
    </>
  );
}

export function SignInApp({ location }: { location: PageLocation }) {
  const auth = useLoad(loadAuthState);
  const signedIn = auth.data?.signed_in === true;
  const next = nextFromSearch(location.search);
  useEffect(() => {
    if (signedIn) window.location.replace(next);
  }, [signedIn, next]);
  useEffect(() => {
    document.title = `${location.pathname === PAGES.setup ? 'Set up' : 'Sign in'} · Overlay Companion`;
  }, [location.pathname]);

  let body;
  if (auth.data === undefined) {
    body =
      auth.error !== null ? (
        <>
          <h1 className="auth__title">Sign in</h1>
          <ErrorMessage message={auth.error} />
          <button type="button" className="button button--wide" onClick={auth.reload}>
            Try again
          </button>
        </>
      ) : (
        <p role="status">Checking the bridge…</p>
      );
  } else if (signedIn) {
    body = <p role="status">You are signed in; opening the page…</p>;
  } else {
    body = <Body location={location} state={auth.data} />;
  }
  return (
    <main className="auth">
      <div className="auth__card">
        <p className="auth__brand">Overlay Companion</p>
        {body}
      </div>
    </main>
  );
}
