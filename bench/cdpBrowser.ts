// Debian's Chromium for the MCP bench's viewer, driven over a bare DevTools connection instead of
// Playwright. Playwright enables the Network domain on every page, so Chromium serializes every
// WebSocket frame of the page (each tool_call and tool_result, every frame of the desktop) into
// an event for the controlling process — CPU in Chromium and in the bench that a person's
// browser never spends, on the same two cores as the bridge being measured. Here the bench only
// evaluates expressions and reads counters, between timed loops; nothing is enabled that streams.
// The DevTools wire is chrome-remote-interface's.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import CDP from 'chrome-remote-interface';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.js';

/** One page (target) of the browser. */
export interface CdpPage {
  /** Runs `expression` in the page (promises awaited) and returns its JSON value. */
  evaluate<T>(expression: string): Promise<T>;
  /** The page's DevTools client, for anything else (e.g. Performance counters). */
  client: CDP.Client;
  close(): Promise<void>;
}

export interface CdpBrowser {
  /** The browser's main process (its renderers and helpers are its descendants). */
  pid: number;
  /**
   * Opens a page of `width`×`height`, sets `cookies` for `url` (e.g. the sign-in cookie), runs
   * `initScript` in every document, then loads `url`.
   */
  newPage(
    url: string,
    options?: {
      initScript?: string;
      width?: number;
      height?: number;
      cookies?: ReadonlyArray<{ name: string; value: string }>;
      /**
       * A window of its own rather than a tab: a tab behind another is hidden, and a hidden
       * page runs no animation frames (a second viewer window must keep painting).
       */
      newWindow?: boolean;
    },
  ): Promise<CdpPage>;
  close(): Promise<void>;
}

const DEVTOOLS_LINE = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//;

function devtoolsPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`Chromium did not start:\n${seen}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = DEVTOOLS_LINE.exec(seen);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}) before DevTools listened:\n${seen}`));
    });
  });
}

/** A blank page in a new window, made over the browser's own DevTools target. */
async function newWindowTarget(port: number): Promise<{ id: string }> {
  const { webSocketDebuggerUrl } = await CDP.Version({ host: '127.0.0.1', port });
  const browser = await CDP({ host: '127.0.0.1', port, target: webSocketDebuggerUrl });
  try {
    const { targetId } = await browser.Target.createTarget({ url: 'about:blank', newWindow: true });
    return { id: targetId };
  } finally {
    await browser.close();
  }
}

export async function launchCdpBrowser(): Promise<CdpBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'oc-bench-chromium-'));
  const child = spawn(
    CHROMIUM_PATH,
    [
      ...CHROMIUM_ARGS,
      '--headless=new',
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    // Its own process group, so stopping it ends its helpers (zygote, renderers) too.
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
    // Best effort: a helper may still be flushing into the profile for a moment.
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    } catch {
      // left in the temp dir
    }
  };
  try {
    const port = await devtoolsPort(child);
    const pages = new Set<CdpPage>();

    const newPage: CdpBrowser['newPage'] = async (url, options = {}) => {
      const target = options.newWindow
        ? await newWindowTarget(port)
        : await CDP.New({ host: '127.0.0.1', port, url: 'about:blank' });
      const client = await CDP({ host: '127.0.0.1', port, target: target.id });
      await client.Emulation.setDeviceMetricsOverride({
        width: options.width ?? 1280,
        height: options.height ?? 800,
        deviceScaleFactor: 1,
        mobile: false,
      });
      // Page events are few (lifecycle); scripts for new documents only run with it on.
      await client.Page.enable();
      if (options.initScript !== undefined) {
        await client.Page.addScriptToEvaluateOnNewDocument({ source: options.initScript });
      }
      // Network.setCookie works without Network.enable, so no per-frame events start flowing.
      for (const cookie of options.cookies ?? []) {
        const { success } = await client.Network.setCookie({
          ...cookie,
          url,
          httpOnly: true,
          sameSite: 'Strict',
        });
        if (!success) throw new Error(`Chromium refused the ${cookie.name} cookie for ${url}.`);
      }
      await client.Page.navigate({ url });
      const page: CdpPage = {
        client,
        evaluate: async <T>(expression: string): Promise<T> => {
          const reply = await client.Runtime.evaluate({
            expression,
            awaitPromise: true,
            returnByValue: true,
          });
          if (reply.exceptionDetails !== undefined) {
            const details = reply.exceptionDetails;
            throw new Error(details.exception?.description ?? details.text);
          }
          return reply.result.value as T;
        },
        close: async () => {
          pages.delete(page);
          await client.close().catch(() => undefined);
          await CDP.Close({ host: '127.0.0.1', port, id: target.id }).catch(() => undefined);
        },
      };
      pages.add(page);
      return page;
    };

    return {
      pid: child.pid ?? -1,
      newPage,
      close: async () => {
        for (const page of [...pages]) await page.close();
        await stop();
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
