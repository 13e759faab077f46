// "New desktop" on the fleet page, where the person may add desktops (admins; members when the
// bridge's setting allows — the desktops list says so in `may_add`): one step makes a local
// sandboxed desktop with the name given and a token limited to it, then shows that token with the
// client configuration filled in (the tokens page's NewToken), so starting another agent is
// pasting one block. The bridge checks both requests as it does on /desktops and /config.
import {
  API,
  CreatedToken,
  DesktopList,
  DesktopView,
  type CreatedToken as CreatedTokenType,
} from '@overlay-companion/protocol';
import { useCallback, useState } from 'react';
import { api } from '../net/api.js';
import { ErrorMessage } from '../pages/common/Alert.js';
import { errorText } from '../pages/common/errors.js';
import { useLoad } from '../pages/common/useLoad.js';
import { NewToken } from '../pages/console/config/NewToken.js';
import { mcpEndpointUrl, type ClientSetupId } from '../pages/console/config/clientConfig.js';

/** Local desktops stop after this many idle minutes (the desktops page's default). */
const IDLE_STOP_MINUTES = 30;

export function NewDesktop() {
  const load = useCallback(() => api.get(API.desktops, DesktopList), []);
  const list = useLoad(load);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ desktop: DesktopView; token: CreatedTokenType } | null>(
    null,
  );
  const [client, setClient] = useState<ClientSetupId | null>(null);
  if (list.data?.may_add !== true) return null;

  const make = async (): Promise<void> => {
    const trimmed = name.trim();
    if (trimmed === '') {
      setError('Give the desktop a name, e.g. “Agent 3”.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const desktop = await api.post(
        API.desktops,
        { name: trimmed, kind: 'local', params: { idle_stop_minutes: IDLE_STOP_MINUTES } },
        DesktopView,
      );
      const token = await api.post(
        API.tokens,
        { name: `${trimmed} agent`.slice(0, 64), desktops: [desktop.id] },
        CreatedToken,
      );
      setCreated({ desktop, token });
      setName('');
    } catch (thrown) {
      setError(errorText(thrown));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="fleet-new" aria-labelledby="fleet-new-heading">
      <h2 id="fleet-new-heading">New desktop</h2>
      <p className="fleet-new__help">
        A sandboxed desktop on this machine and a token that reaches only it, for another agent.
      </p>
      <form
        className="fleet-new__form"
        onSubmit={(event) => {
          event.preventDefault();
          void make();
        }}
      >
        <div className="field">
          <label htmlFor="fleet-new-name" className="field__label">
            Name
          </label>
          <input
            id="fleet-new-name"
            className="field__input"
            value={name}
            maxLength={56}
            onChange={(event) => setName(event.target.value)}
            data-testid="fleet-new-name"
          />
        </div>
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? 'Making it…' : 'Make desktop and token'}
        </button>
      </form>
      {error !== null && <ErrorMessage message={error} />}
      {created !== null && (
        <NewToken
          created={created.token}
          endpoint={mcpEndpointUrl(window.location.origin)}
          client={client}
          onChooseClient={setClient}
          onDone={() => setCreated(null)}
        />
      )}
    </section>
  );
}
