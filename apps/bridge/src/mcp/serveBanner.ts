// What `serve` prints about MCP once the bridge listens: the endpoint, where the token lives and
// a client configuration to paste (the token itself included: the person needs it, and stdout
// is their terminal; logs on stderr never carry it).
import { clientConfigBanner } from '../auth/clientConfig.js';
import type { LoadedToken } from '../auth/mcpToken.js';
import type { ControlledBridge } from './startWithControlPlane.js';

export function mcpBanner(handle: {
  bridge: ControlledBridge;
  mcpToken: LoadedToken | undefined;
}): string {
  const publicUrl = handle.bridge.controlPlane.publicUrl;
  const mcpUrl =
    publicUrl === undefined ? handle.bridge.mcpUrl : new URL('/mcp', publicUrl).toString();
  return clientConfigBanner({
    mcpUrl,
    token: handle.mcpToken?.token,
    tokenPath: handle.mcpToken?.path,
  }).trimEnd();
}
