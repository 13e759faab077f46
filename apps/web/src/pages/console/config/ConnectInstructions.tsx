// How to connect an AI client: one tab per client (Claude Code, Claude Desktop, Cursor, VS Code,
// Cherry Studio, others, the stdio forwarder, in clientSetups()'s order), each panel with the
// text to paste. `token` fills them in right after a token was created; otherwise they carry a
// placeholder. The tabs follow the WAI-ARIA tabs pattern (tabKeys.ts): one tab stop for the
// row, arrows move between tabs. Every panel stays in the page, hidden but one, so the choice
// switches instantly; which client is chosen is the caller's, so it survives creating a token.
import type { KeyboardEvent } from 'react';
import { CodeBlock, CopyButton } from '../../common/CopyButton.js';
import { TOKEN_PLACEHOLDER, clientSetups, type ClientSetupId } from './clientConfig.js';
import { tabAfterKey } from './tabKeys.js';

export interface ConnectInstructionsProps {
  endpoint: string;
  token?: string;
  /** Distinguishes ids when the instructions appear twice on the page. */
  idPrefix: string;
  /** The client whose tab is selected; null: the first. */
  chosen: ClientSetupId | null;
  onChoose: (client: ClientSetupId) => void;
}

export function ConnectInstructions({
  endpoint,
  token,
  idPrefix,
  chosen,
  onChoose,
}: ConnectInstructionsProps) {
  const filled = token !== undefined;
  const suffix = filled ? ' with the new token' : '';
  const setups = clientSetups(endpoint, token ?? TOKEN_PLACEHOLDER);
  const selected = Math.max(
    0,
    setups.findIndex((setup) => setup.id === chosen),
  );
  const tabId = (id: ClientSetupId) => `${idPrefix}-tab-${id}`;
  const panelId = (id: ClientSetupId) => `${idPrefix}-${id}`;

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const next = tabAfterKey(event.key, selected, setups.length);
    const setup = next === undefined ? undefined : setups[next];
    if (setup === undefined) return;
    event.preventDefault();
    onChoose(setup.id);
    document.getElementById(tabId(setup.id))?.focus();
  };

  return (
    <div className="instructions">
      <p>
        Pick your AI client and paste its configuration
        {filled
          ? '; it already carries the new token.'
          : `, with your token in place of ${TOKEN_PLACEHOLDER}.`}
      </p>
      <div className="client-tabs" role="tablist" aria-label="AI clients" onKeyDown={onKeyDown}>
        {setups.map((setup, index) => (
          <button
            key={setup.id}
            id={tabId(setup.id)}
            type="button"
            role="tab"
            className="client-tabs__tab"
            aria-selected={index === selected}
            aria-controls={panelId(setup.id)}
            tabIndex={index === selected ? 0 : -1}
            onClick={() => onChoose(setup.id)}
          >
            {setup.client}
          </button>
        ))}
      </div>
      {setups.map((setup, index) => {
        const label = `${setup.label}${suffix}`;
        return (
          <div
            key={setup.id}
            id={panelId(setup.id)}
            className="client-tabs__panel"
            role="tabpanel"
            aria-labelledby={tabId(setup.id)}
            hidden={index !== selected}
            data-client-setup={setup.id}
          >
            <p>{setup.where}</p>
            <CodeBlock text={setup.text} label={label} />
            <CopyButton text={setup.text} label={`Copy the ${label}`} />
          </div>
        );
      })}
    </div>
  );
}
