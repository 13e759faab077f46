// What `serve` prints once everything is up (stdout, for the person): where to open the viewer,
// how to sign in — the one-time setup link on a first run —, and how to connect an AI client:
// the MCP endpoint and where to make a token. Never a token or a password (logs and terminals
// get copied around); the setup code is printed because it is the way in on a first run, and it
// works once, only until the bridge restarts.
import { PAGES } from '@overlay-companion/protocol';
import type { FirstRun } from '../auth/firstRun.js';
import type { ControlledBridge } from '../bridge.js';

export function serveBanner(handle: {
  bridge: ControlledBridge;
  firstRun: FirstRun;
  envToken: boolean;
  /** True when OpenID Connect sign-in is configured. */
  oidc?: boolean;
}): string {
  const base = handle.bridge.desktopControl.publicUrl ?? handle.bridge.url;
  const at = (path: string): string => new URL(path, base).toString();
  const lines: string[] = [];
  switch (handle.firstRun.kind) {
    case 'setup':
      lines.push(
        `  First run: open ${at(PAGES.setup)}#code=${handle.firstRun.code}`,
        '             to create the admin account (the link works once, until the bridge restarts).',
      );
      break;
    case 'admin-created':
      lines.push(
        `  Sign in:  as ${handle.firstRun.username} (created from OC_ADMIN_USER / OC_ADMIN_PASSWORD).`,
      );
      break;
    case 'admin-exists':
      lines.push(`  Sign in:  at ${at(PAGES.signIn)} (admin: ${handle.firstRun.username}).`);
      break;
  }
  lines.push(
    `  MCP endpoint: ${at('/mcp')} (Streamable HTTP, "Authorization: Bearer <token>")`,
    `  AI clients: create a token on ${at(PAGES.config)} (signed in); it shows the client configuration to paste.`,
  );
  if (handle.envToken)
    lines.push('  OC_MCP_TOKEN is set: it works as a token that acts for the admin.');
  if (handle.oidc === true) {
    lines.push(
      `  OpenID Connect: register ${at('/api/auth/oidc/callback')} as the redirect URI at your provider.`,
    );
  }
  return lines.join('\n');
}
