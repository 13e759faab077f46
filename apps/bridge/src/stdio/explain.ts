// Turns what can go wrong between the stdio proxy and the bridge into one sentence for the
// person (stderr) and the MCP client (JSON-RPC error message), each saying what to do next.
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** JSON-RPC error code for "the bridge could not be reached or refused the message". */
export const BRIDGE_ERROR_CODE = -32000;

function causeCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

export function explainBridgeError(err: unknown, url: string): string {
  if (err instanceof StreamableHTTPError) {
    switch (err.code) {
      case 401:
        return `The bridge at ${url} refused the token (HTTP 401: missing, wrong, expired or revoked). Create a token on the bridge's /config page and set OC_MCP_TOKEN (or --token-file) to it.`;
      case 403:
        return `The bridge at ${url} refused the request (HTTP 403: Host or Origin not allowed). Use the address the bridge listens on, or set OC_PUBLIC_URL on the bridge. (${err.message})`;
      case 404:
        return `The bridge at ${url} no longer knows this MCP session (it restarted, or the session expired), and opening a new one failed. Restart this MCP server in your client to start over.`;
      default:
        return `The bridge at ${url} answered with an error: ${err.message}`;
    }
  }
  const code = causeCode(err);
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') {
    return `The bridge at ${url} closed the connection before answering (it stopped or restarted). The action may or may not have happened; check, then retry.`;
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND') {
    return `Cannot reach the bridge at ${url} (${code}). Start it with \`overlay-companion serve\`, or point --url at the bridge's /mcp endpoint.`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return `The bridge at ${url} could not be reached: ${message}${code === undefined ? '' : ` (${code})`}. Check that it runs and that --url is its /mcp endpoint.`;
}
