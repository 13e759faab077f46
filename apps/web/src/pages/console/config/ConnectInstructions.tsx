// How to connect an AI client: the endpoint, the configuration to paste and the stdio
// alternative. `token` fills them in right after a token was created; otherwise they carry a
// placeholder.
import { CodeBlock, CopyButton } from '../../common/CopyButton.js';
import {
  TOKEN_PLACEHOLDER,
  httpClientConfig,
  stdioClientConfig,
  stdioCommand,
} from './clientConfig.js';

export interface ConnectInstructionsProps {
  endpoint: string;
  token?: string;
  /** Distinguishes copy buttons when the instructions appear twice on the page. */
  idPrefix: string;
}

export function ConnectInstructions({ endpoint, token, idPrefix }: ConnectInstructionsProps) {
  const filled = token !== undefined;
  const httpConfig = httpClientConfig(endpoint, token ?? TOKEN_PLACEHOLDER);
  const command = stdioCommand(endpoint, token ?? TOKEN_PLACEHOLDER);
  const stdioConfig = stdioClientConfig(endpoint, token ?? TOKEN_PLACEHOLDER);
  const suffix = filled ? ' with the new token' : '';
  return (
    <div className="instructions">
      <h3 id={`${idPrefix}-http`}>Client configuration (Streamable HTTP)</h3>
      <p>
        Paste this into the AI client&apos;s MCP settings
        {filled ? '; it already carries the new token.' : ', with a token in place of <token>.'}
      </p>
      <CodeBlock text={httpConfig} label={`Client configuration${suffix}`} />
      <CopyButton text={httpConfig} label={`Copy the client configuration${suffix}`} />

      <h3 id={`${idPrefix}-stdio`}>Clients that only speak stdio</h3>
      <p>
        Run a local proxy to this bridge; it reads the token from <code>OC_MCP_TOKEN</code> and
        opens a new session by itself when the bridge restarts.
      </p>
      <CodeBlock text={command} label={`Stdio command${suffix}`} />
      <CopyButton text={command} label={`Copy the stdio command${suffix}`} />
      <p>Or, as a client configuration:</p>
      <CodeBlock text={stdioConfig} label={`Stdio client configuration${suffix}`} />
      <CopyButton text={stdioConfig} label={`Copy the stdio client configuration${suffix}`} />
    </div>
  );
}
