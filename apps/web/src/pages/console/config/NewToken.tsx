// The one moment a token's secret is visible: right after it was created. Says plainly that it
// will not be shown again (the bridge keeps only a hash), offers a copy button and the client
// configuration already filled in, and forgets the secret when the person is done.
import type { CreatedToken } from '@overlay-companion/protocol';
import { useEffect, useRef } from 'react';
import { CopyButton } from '../../common/CopyButton.js';
import { ConnectInstructions } from './ConnectInstructions.js';
import type { ClientSetupId } from './clientConfig.js';

export interface NewTokenProps {
  created: CreatedToken;
  endpoint: string;
  /** The client tab chosen on the page (kept when the instructions get the new token). */
  client: ClientSetupId | null;
  onChooseClient: (client: ClientSetupId) => void;
  onDone: () => void;
}

export function NewToken({ created, endpoint, client, onChooseClient, onDone }: NewTokenProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, [created]);
  return (
    <section className="new-token" aria-labelledby="new-token-title">
      <h3 id="new-token-title" ref={heading} tabIndex={-1}>
        New token “{created.token.name}”
      </h3>
      <p className="new-token__warning">
        <strong>Copy it now: you will not see it again.</strong> The bridge keeps only a hash of it.
        If it is lost, revoke it and create another.
      </p>
      <div className="field">
        <label htmlFor="new-token-secret" className="field__label">
          Token
        </label>
        <div className="field__row">
          <input
            id="new-token-secret"
            className="field__input field__input--code"
            readOnly
            value={created.secret}
            spellCheck={false}
            autoComplete="off"
            onFocus={(event) => event.target.select()}
          />
          <CopyButton text={created.secret} label="Copy the token" />
        </div>
      </div>
      <ConnectInstructions
        endpoint={endpoint}
        token={created.secret}
        idPrefix="new-token"
        chosen={client}
        onChoose={onChooseClient}
      />
      <button type="button" className="button button--primary" onClick={onDone}>
        I have copied it — hide the token
      </button>
    </section>
  );
}
