// Sign out: POST /api/auth/signout (the bridge ends this browser's session and its sockets),
// then the sign-in page. A failure is shown next to the button; the person stays signed in.
import { API, PAGES } from '@overlay-companion/protocol';
import { useState } from 'react';
import { AnyAnswer, api } from '../../net/api.js';
import { errorText } from './errors.js';

export function SignOutButton({ className = 'button' }: { className?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        className={className}
        aria-disabled={busy}
        onClick={() => {
          if (busy) return;
          setBusy(true);
          setError(null);
          api.post(API.signOut, {}, AnyAnswer).then(
            () => window.location.assign(PAGES.signIn),
            (thrown: unknown) => {
              setBusy(false);
              setError(`Could not sign out: ${errorText(thrown)}`);
            },
          );
        }}
      >
        {busy ? 'Signing out…' : 'Sign out'}
      </button>
      {error ? (
        <span className="sign-out__error" role="alert">
          {error}
        </span>
      ) : null}
    </>
  );
}
