// The real stack for the MCP benchmarks: `overlay-companion serve --desktop local --mode
// autopilot` (input runs without a person approving each call), started with the e2e launcher
// (e2e/support/bridgeProcess.ts), so with sign-in on and the audit log written: the admin from
// OC_ADMIN_USER / OC_ADMIN_PASSWORD and a bearer token we choose (OC_MCP_TOKEN, acting for the
// admin), plus the viewer page in headless Chromium, signed in as the admin (its cookie set over
// DevTools), as the control viewer that executes the tool calls. The page runs in Chromium
// without Playwright (cdpBrowser.ts says why).
import { startStack } from '../e2e/support/bridgeProcess.js';
import { adminSession } from '../e2e/support/signIn.js';
import { launchCdpBrowser, type CdpBrowser, type CdpPage } from './cdpBrowser.js';

export interface McpStack {
  /** The bridge's node process (its children are the desktop's Xvnc, openbox, xterm). */
  bridgePid: number;
  url: string;
  mcpUrl: string;
  token: string;
  display: string;
  xEnv: NodeJS.ProcessEnv;
  browser: CdpBrowser;
  page: CdpPage;
  output(): string;
  stop(): Promise<void>;
}

const MCP_LINE = /MCP endpoint:\s+(https?:\/\/\S+)/;

/**
 * Page script (a string: tsx's name helpers do not exist in the page) that records, for every
 * tool_call the viewer receives on /ws/viewer, the time until it sends the tool_result. Lets the
 * bench split a round trip into "inside the viewer" and "everything else".
 */
const VIEWER_TIMING = `(() => {
  const samples = [];
  window.__ocBench = { samples };
  const Original = window.WebSocket;
  class Timed extends Original {
    constructor(url, protocols) {
      super(url, protocols);
      if (!String(url).includes('/ws/viewer')) return;
      const received = new Map();
      this.addEventListener('message', (event) => {
        const at = performance.now();
        if (typeof event.data !== 'string' || !event.data.includes('"tool_call"')) return;
        const m = JSON.parse(event.data);
        if (m.type === 'tool_call') received.set(m.id, { at, name: m.name, bytes: event.data.length });
      });
      const send = this.send.bind(this);
      this.send = (data) => {
        const before = performance.now();
        send(data);
        const after = performance.now();
        // A screenshot answer is a binary frame: 4-byte header length, then its JSON header.
        const text = typeof data === 'string' ? data
          : data instanceof Uint8Array ? new TextDecoder().decode(data.subarray(4, 4 + new DataView(data.buffer, data.byteOffset).getUint32(0)))
          : '';
        if (!text.includes('"tool_result')) return;
        const idMatch = /"id":"([^"]+)"/.exec(text);
        const start = idMatch && received.get(idMatch[1]);
        if (!start) return;
        received.delete(idMatch[1]);
        samples.push({ name: start.name, handleMs: before - start.at, sendMs: after - before, bytes: typeof data === 'string' ? data.length : data.byteLength, receivedAt: performance.timeOrigin + start.at, sentAt: performance.timeOrigin + before });
      };
    }
  }
  window.WebSocket = Timed;
})()`;

/**
 * `nodeArgs` go to the bridge's node before its script, e.g. `--cpu-prof` to see where its time
 * goes (the profile is written when it exits on our SIGINT).
 */
export async function startMcpStack(
  options: { nodeArgs?: string[]; timeoutMs?: number } = {},
): Promise<McpStack> {
  // OC_BENCH_WEB_ROOT: another build of the viewer (an A/B of two builds on the same machine).
  const webRoot = process.env.OC_BENCH_WEB_ROOT;
  const stack = await startStack({
    flags: ['--mode', 'autopilot', ...(webRoot ? ['--web-root', webRoot] : [])],
    ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  let browser: CdpBrowser | undefined;
  const stop = async () => {
    await browser?.close().catch(() => undefined);
    await stack.stop();
  };
  try {
    const token = stack.mcpToken;
    if (token === undefined) throw new Error('The stack was started without OC_MCP_TOKEN.');
    // The MCP banner follows the "Open:" line; it may arrive a moment later.
    for (let i = 0; i < 100 && !MCP_LINE.test(stack.output()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const printed = stack.output();
    if (printed.includes(token)) throw new Error('The bridge printed its OC_MCP_TOKEN.');
    const mcpUrl = MCP_LINE.exec(printed)?.[1] ?? new URL('/mcp', stack.url).toString();

    // The viewer is signed in as the admin, as a person's browser would be (HTTP sign-in).
    const session = await adminSession(stack);
    const at = session.cookie.indexOf('=');
    const cookie = { name: session.cookie.slice(0, at), value: session.cookie.slice(at + 1) };
    browser = await launchCdpBrowser();
    const page = await browser.newPage(stack.url, { initScript: VIEWER_TIMING, cookies: [cookie] });
    await waitForPage(
      page,
      // Connected, and the first frame has arrived (its size is in the status bar).
      `(() => { const label = document.querySelector('[data-testid="connection-label"]'); return !!label && label.textContent.includes('Connected') && !!document.querySelector('[data-testid="desktop-size"]'); })()`,
      'the viewer never connected and showed the desktop',
    );
    await waitForControl(page);
    return {
      bridgePid: stack.pid,
      url: stack.url,
      mcpUrl,
      token,
      display: stack.display,
      xEnv: stack.xEnv,
      browser,
      page,
      output: () => stack.output(),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Polls `condition` (a page expression) until it is true. */
async function waitForPage(
  page: CdpPage,
  condition: string,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await page.evaluate<boolean>(condition).catch(() => false)) === true) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} within ${timeoutMs} ms.`);
}

/** Waits until this page is the control viewer (the one the bridge relays tool calls to). */
async function waitForControl(page: CdpPage, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = String(
      await page.evaluate(
        `(() => { const c = window.__overlayCompanion && window.__overlayCompanion.control(); return c ? c.link + '/' + c.role + '/' + c.mode : 'no test api'; })()`,
      ),
    );
    if (last.startsWith('open/control/')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The viewer never became the control viewer (last state: ${last}).`);
}

export interface ViewerSample {
  name: string;
  handleMs: number;
  sendMs: number;
  bytes: number;
  /** Epoch ms (sub-ms) the tool_call arrived and the tool_result was handed to the socket. */
  receivedAt: number;
  sentAt: number;
}

/** Takes (and clears) the viewer-side timings recorded since the last call. */
export async function drainViewerSamples(page: CdpPage): Promise<ViewerSample[]> {
  return page.evaluate<ViewerSample[]>(`window.__ocBench.samples.splice(0)`);
}

/** Renderer time counters of the viewer page (CDP Performance.getMetrics), in milliseconds. */
export interface RendererTimes {
  task: number;
  script: number;
  layout: number;
  recalc_style: number;
}

/**
 * Starts reading the viewer page's renderer counters; the returned function gives the time
 * spent since, per call, for `calls` calls. Says where the page's CPU goes (script, style,
 * layout; the rest of task is paint, parsing and other work).
 */
export async function rendererTimes(
  page: CdpPage,
): Promise<(calls: number) => Promise<RendererTimes>> {
  await page.client.Performance.enable({});
  const read = async () => {
    const { metrics } = await page.client.Performance.getMetrics();
    const value = (name: string) => (metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
    return {
      task: value('TaskDuration'),
      script: value('ScriptDuration'),
      layout: value('LayoutDuration'),
      recalc_style: value('RecalcStyleDuration'),
    };
  };
  const before = await read();
  return async (calls) => {
    const after = await read();
    await page.client.Performance.disable().catch(() => undefined);
    const per = (key: keyof RendererTimes) =>
      Math.round(((after[key] - before[key]) / Math.max(1, calls)) * 1000) / 1000;
    return {
      task: per('task'),
      script: per('script'),
      layout: per('layout'),
      recalc_style: per('recalc_style'),
    };
  };
}
