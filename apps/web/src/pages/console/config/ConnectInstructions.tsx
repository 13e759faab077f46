// How to connect an AI client: one section per client (Claude Code, Claude Desktop, Cursor,
// VS Code, Cherry Studio, others, the stdio forwarder), each with the text to paste from
// clientSetups(). `token` fills them in right after a token was created; otherwise they carry
// a placeholder.
import { CodeBlock, CopyButton } from '../../common/CopyButton.js';
import { TOKEN_PLACEHOLDER, clientSetups } from './clientConfig.js';

export interface ConnectInstructionsProps {
  endpoint: string;
  token?: string;
  /** Distinguishes ids when the instructions appear twice on the page. */
  idPrefix: string;
}

export function ConnectInstructions({ endpoint, token, idPrefix }: ConnectInstructionsProps) {
  const filled = token !== undefined;
  const suffix = filled ? ' with the new token' : '';
  return (
    <div className="instructions">
      <p>
        Pick your AI client and paste its configuration
        {filled
          ? '; it already carries the new token.'
          : `, with a token in place of ${TOKEN_PLACEHOLDER}.`}
      </p>
      {clientSetups(endpoint, token ?? TOKEN_PLACEHOLDER).map((setup) => {
        const heading = `${idPrefix}-${setup.id}`;
        const label = `${setup.label}${suffix}`;
        return (
          <section key={setup.id} aria-labelledby={heading} data-client-setup={setup.id}>
            <h3 id={heading}>{setup.client}</h3>
            <p>{setup.where}</p>
            <CodeBlock text={setup.text} label={label} />
            <CopyButton text={setup.text} label={`Copy the ${label}`} />
          </section>
        );
      })}
    </div>
  );
}
