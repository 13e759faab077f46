// /config: how to connect an AI client to this bridge — first create a token, then the client
// configurations to paste (one tab per client, filled in with the new token once it exists) —
// and the person's API tokens (list, revoke). When what had the keyboard goes away (the new token hidden, a
// revoked token's button), the focus moves to the tokens heading instead of the page's start.
import {
  API,
  DesktopList,
  TokenList,
  type CreatedToken,
  type TokenView,
} from '@overlay-companion/protocol';
import { useRef, useState } from 'react';
import { AnyAnswer, api } from '../../../net/api.js';
import { ErrorMessage, StatusMessage } from '../../common/Alert.js';
import { CopyButton } from '../../common/CopyButton.js';
import { errorText } from '../../common/errors.js';
import { useLoad } from '../../common/useLoad.js';
import { ConnectInstructions } from './ConnectInstructions.js';
import { CreateTokenForm } from './CreateTokenForm.js';
import { NewToken } from './NewToken.js';
import { TokenTable } from './TokenTable.js';
import { mcpEndpointUrl, type ClientSetupId } from './clientConfig.js';

/** The list, and when it was read (expiry is judged at that moment, not at each render). */
const loadTokens = async () => ({ ...(await api.get(API.tokens, TokenList)), at: Date.now() });
/** For naming the desktops a token is limited to (a failure leaves ids in the table). */
const loadDesktops = () => api.get(API.desktops, DesktopList);

export function ConfigPage() {
  const endpoint = mcpEndpointUrl(window.location.origin);
  const tokens = useLoad(loadTokens);
  const desktops = useLoad(loadDesktops);
  const [created, setCreated] = useState<CreatedToken | null>(null);
  /** The client tab chosen; null until the person picks one (the first is shown). */
  const [client, setClient] = useState<ClientSetupId | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const tokensHeading = useRef<HTMLHeadingElement>(null);

  const revoke = (token: TokenView) => {
    setRevoking(token.id);
    setActionError(null);
    setNotice(null);
    api.del(`${API.tokens}/${encodeURIComponent(token.id)}`, undefined, AnyAnswer).then(
      () => {
        setRevoking(null);
        setNotice(`Revoked “${token.name}”.`);
        tokens.reload();
        // Its Revoke button, which has the focus, goes away with the reload.
        tokensHeading.current?.focus();
      },
      (thrown: unknown) => {
        setRevoking(null);
        setActionError(`Could not revoke “${token.name}”: ${errorText(thrown)}`);
      },
    );
  };

  return (
    <>
      <section aria-labelledby="connect-title" className="section">
        <h2 id="connect-title">Connect an AI client</h2>
        <p>
          AI clients reach this bridge over MCP (Streamable HTTP) with a token: create one, then
          paste your client’s configuration, which carries it. Each token acts for you: its calls
          reach only your viewer windows, within your mode and permissions.
        </p>
        <h3 id="create-token-title">Create a token</h3>
        <CreateTokenForm
          onCreated={(token) => {
            setNotice(null);
            setCreated(token);
            tokens.reload();
          }}
        />
        {created !== null ? (
          <NewToken
            created={created}
            endpoint={endpoint}
            client={client}
            onChooseClient={setClient}
            onDone={() => {
              setCreated(null);
              tokensHeading.current?.focus();
            }}
          />
        ) : (
          <>
            <h3 id="paste-title">Paste it into your AI client</h3>
            <ConnectInstructions
              endpoint={endpoint}
              idPrefix="connect"
              chosen={client}
              onChoose={setClient}
            />
          </>
        )}
        <div className="field endpoint-field">
          <span className="field__label" id="endpoint-label">
            MCP endpoint
          </span>
          <div className="field__row">
            <code className="endpoint" aria-labelledby="endpoint-label">
              {endpoint}
            </code>
            <CopyButton text={endpoint} label="Copy the MCP endpoint" />
          </div>
        </div>
      </section>

      <section aria-labelledby="tokens-title" className="section">
        <h2 id="tokens-title" ref={tokensHeading} tabIndex={-1}>
          API tokens
        </h2>
        <ErrorMessage message={actionError} />
        <StatusMessage message={notice} />
        {tokens.error !== null ? <ErrorMessage message={tokens.error} /> : null}
        {tokens.data === undefined ? (
          tokens.error === null ? (
            <p role="status">Loading tokens…</p>
          ) : null
        ) : (
          <TokenTable
            tokens={tokens.data.tokens}
            now={tokens.data.at}
            onRevoke={revoke}
            busyId={revoking}
            desktopNames={
              new Map((desktops.data?.desktops ?? []).map((d) => [d.id, d.name] as const))
            }
          />
        )}
      </section>
    </>
  );
}
