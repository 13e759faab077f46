// A headless Overlay Companion session for tests: what `overlay-companion serve --desktop local
// --headless-viewer` starts — a local Xvnc desktop (openbox and an xterm), the embedded gateway,
// the bridge on a free loopback port with a throwaway data dir, and a headless Chromium viewer
// signed in as a scripted admin — started in-process, plus a token MCP clients use. Resolves once
// the viewer answers (get_display_info succeeds), so the first tool call of a test never races
// the viewer's start. stop() ends everything it started, the desktop included.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loggerOptions, runServe, type ServeHandle } from '@overlay-companion/bridge';
import { pino } from 'pino';

export type SessionMode = 'passive' | 'assist' | 'composing' | 'autopilot';

export interface SessionOptions {
  /**
   * The starting mode. Default `autopilot`: input tools run without asking, since nobody sits at
   * the headless viewer. In `assist`, input is approved through MCP elicitation (declare the
   * capability on your client) or denied: the session's admin allows approvals through the
   * client, which a real person must turn on themselves.
   */
  mode?: SessionMode;
  /** Where the bridge's JSON log goes; none when undefined. */
  logFile?: string | undefined;
  /** pino level of that log (default info). */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /** How long the desktop, the bridge and the viewer may take to come up. Default 60 s. */
  startTimeoutMs?: number;
}

export interface DesktopInfo {
  /** The X display, e.g. `:7`. */
  display: string;
  /** The X cookie file; X clients need it. */
  xauthority: string;
  /** `process.env` plus DISPLAY and XAUTHORITY: pass it to xdotool, xwd, xclip. */
  env: NodeJS.ProcessEnv;
  /**
   * The desktop's HOME. Its programs run sandboxed, with a /tmp and a view of the files of
   * their own: a file the desktop writes for the test goes here — `inDesktop` is its path as
   * the desktop's programs see it, `onHost` the same folder as the test reads it.
   */
  home: { inDesktop: string; onHost: string };
}

export interface OverlaySession {
  /** The viewer's URL, e.g. http://127.0.0.1:41234/ (sign-in needed to open it). */
  url: string;
  /** The MCP endpoint (Streamable HTTP). */
  mcpUrl: string;
  /** A token that acts for the session's admin: `Authorization: Bearer <token>`. */
  token: string;
  desktop: DesktopInfo;
  /** A new MCP client connected with the token; close it when done. */
  connect(name?: string): Promise<Client>;
  stop(): Promise<void>;
}

const secret = (bytes: number): string => randomBytes(bytes).toString('base64url');

export async function startOverlaySession(options: SessionOptions = {}): Promise<OverlaySession> {
  const dataDir = await mkdtemp(join(tmpdir(), 'oc-testing-'));
  const token = `oc-test-${secret(24)}`;
  const logger =
    options.logFile === undefined
      ? pino({ level: 'silent' })
      : pino(
          loggerOptions('bridge', options.logLevel ?? 'info'),
          pino.destination({ dest: options.logFile, sync: true, mkdir: true }),
        );
  let handle: ServeHandle | undefined;
  const stop = async (): Promise<void> => {
    await handle?.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    handle = await runServe(
      {
        host: '127.0.0.1',
        port: 0,
        dataDir,
        webRoot: undefined,
        source: { kind: 'local' },
        guacd: undefined,
        headlessViewer: true,
        mode: options.mode ?? 'autopilot',
        admin: { username: 'admin', password: secret(18) },
        mcpToken: token,
      },
      logger,
    );
    const desktop = handle.source.desktop;
    if (desktop === undefined) throw new Error('The local desktop did not start.');
    // Nobody sits at a window here: the test's client stands in for the scripted admin.
    const admin = await handle.access.store.people.byUsername('admin');
    if (admin !== undefined)
      await handle.bridge.desktopControl.planes.updatePermissions(admin.id, {
        approvals_through_client: true,
      });
    const mcpUrl = handle.bridge.mcpUrl;
    const connect = async (name = 'overlay-companion-testing'): Promise<Client> => {
      const client = new Client({ name, version: '0.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcpUrl), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };
    await viewerAnswers(connect, options.startTimeoutMs ?? 60_000);
    return {
      url: handle.bridge.url,
      mcpUrl,
      token,
      desktop: {
        display: desktop.display,
        xauthority: desktop.xauthority,
        env: { ...process.env, ...desktop.env },
        home:
          desktop.sandbox === undefined
            ? { inDesktop: tmpdir(), onHost: tmpdir() }
            : { inDesktop: desktop.sandbox.homeInDesktop, onHost: desktop.sandbox.homeDir },
      },
      connect,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Waits until the headless viewer has joined and answers get_display_info. */
async function viewerAnswers(
  connect: (name?: string) => Promise<Client>,
  timeoutMs: number,
): Promise<void> {
  const client = await connect('overlay-companion-testing-probe');
  try {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      const result = await client.callTool({ name: 'get_display_info', arguments: {} });
      if (result.isError !== true) return;
      last = JSON.stringify(result.content);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`The headless viewer did not answer within ${timeoutMs} ms: ${last}`);
  } finally {
    await client.close();
  }
}
