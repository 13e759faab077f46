// The peer: Microsoft's Playwright MCP server (@playwright/mcp) driving Debian's headless
// Chromium, measured with the same SDK client code as our bridge. It is started as a stdio
// server with --caps=vision (coordinate tools), --isolated (profile in memory) and a 1280×800
// viewport, navigates once to a local page showing the same 1280×800 picture our viewer
// encoded (so both PNG encoders get the same pixels), then times browser_take_screenshot,
// browser_mouse_move_xy and browser_mouse_click_xy. All its options are its defaults otherwise.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CHROMIUM_PATH } from './chromium.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callOk, connectStdio, timeRuns } from './mcpClient.js';
import { summarize, type Summary } from './stats.js';

export interface PeerResults {
  server: string;
  navigate_ms: number;
  take_screenshot_ms: Summary;
  take_screenshot_png_bytes: number;
  mouse_move_xy_ms: Summary;
  mouse_click_xy_ms: Summary;
  /** browser_mouse_move_xy then browser_mouse_click_xy, back to back. */
  move_then_click_ms: Summary;
}

export interface PeerClickOnly {
  server: string;
  mouse_click_xy_ms: Summary;
}

const require = createRequire(import.meta.url);

/** A page that fills the 1280×800 viewport with `png` and counts the clicks it gets. */
async function servePage(png: Buffer): Promise<{ url: string; server: Server }> {
  const html = `<!doctype html><html><head><title>oc-bench peer</title><style>
html,body{margin:0;padding:0;overflow:hidden;width:1280px;height:800px;background:#333}
img{display:block;width:1280px;height:800px}</style></head>
<body><img src="/desktop.png" alt="desktop"><script>window.clicks=0;
addEventListener('mousedown',()=>{window.clicks++});</script></body></html>`;
  const server = createServer((req, res) => {
    if (req.url === '/desktop.png' && png.length > 0) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      res.end(png);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}/`, server };
}

/**
 * Starts Playwright MCP with its defaults plus `extraArgs`, navigates to the page, and runs
 * `measure` against it.
 */
async function withPeer<T>(
  png: Buffer,
  extraArgs: string[],
  measure: (client: Client, url: string, server: string) => Promise<T>,
): Promise<T> {
  const packageJson = require.resolve('@playwright/mcp/package.json');
  const { version } = require('@playwright/mcp/package.json') as { version: string };
  const cli = join(dirname(packageJson), 'cli.js');
  const outputDir = await mkdtemp(join(tmpdir(), 'oc-bench-pwmcp-'));
  const { url, server } = await servePage(png);
  const client = await connectStdio(
    process.execPath,
    [
      cli,
      '--headless',
      '--browser',
      'chromium',
      '--executable-path',
      CHROMIUM_PATH,
      '--no-sandbox',
      '--isolated',
      '--caps=vision',
      '--viewport-size',
      '1280x800',
      '--output-dir',
      outputDir,
      ...extraArgs,
    ],
    'oc-bench-peer',
    // The SDK passes only a few variables by default; Chromium needs HOME and PATH.
    Object.fromEntries(
      Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
    ),
  );
  try {
    const description = `@playwright/mcp ${version} (stdio, --caps=vision, headless ${CHROMIUM_PATH}${extraArgs.length > 0 ? `, ${extraArgs.join(' ')}` : ''})`;
    return await measure(client, url, description);
  } finally {
    await client.close().catch(() => undefined);
    server.close();
    await rm(outputDir, { recursive: true, force: true });
  }
}

const at = (i: number) => ({ x: 300 + (i % 4) * 150, y: 250 + (i % 3) * 100 });

export async function benchPlaywrightMcp(options: {
  samples: number;
  png: Buffer;
  log: (line: string) => void;
}): Promise<PeerResults> {
  const { samples, log } = options;
  return withPeer(options.png, [], async (client, url, server) => {
    log(`bench peer: ${server}: navigate…`);
    const navStart = performance.now();
    await callOk(client, 'browser_navigate', { url });
    const navigateMs = performance.now() - navStart;

    log('bench peer: browser_take_screenshot…');
    let image = '';
    const shots = await timeRuns(samples, 3, async () => {
      image = (await callOk(client, 'browser_take_screenshot', { type: 'png' })).image ?? '';
    });
    if (image === '') throw new Error('browser_take_screenshot returned no image content.');

    log('bench peer: browser_mouse_move_xy / browser_mouse_click_xy…');
    const moves = await timeRuns(samples, 3, (i) => callOk(client, 'browser_mouse_move_xy', at(i)));
    // Each default click waits ~500 ms to settle: fewer samples keep the bench short.
    const clicks = await timeRuns(Math.min(samples, 20), 3, (i) =>
      callOk(client, 'browser_mouse_click_xy', at(i)),
    );
    const pairs = await timeRuns(Math.min(samples, 10), 2, async (i) => {
      await callOk(client, 'browser_mouse_move_xy', at(i));
      await callOk(client, 'browser_mouse_click_xy', at(i));
    });
    return {
      server,
      navigate_ms: Math.round(navigateMs * 10) / 10,
      take_screenshot_ms: summarize(shots),
      take_screenshot_png_bytes: Buffer.from(image, 'base64').length,
      mouse_move_xy_ms: summarize(moves),
      mouse_click_xy_ms: summarize(clicks),
      move_then_click_ms: summarize(pairs),
    };
  });
}

/**
 * browser_mouse_click_xy with --timeout-settle 0: the peer's default waits up to 500 ms after
 * each action for triggered work to settle; this shows its click without that wait.
 */
export async function benchPlaywrightMcpClickNoSettle(options: {
  samples: number;
  png: Buffer;
  log: (line: string) => void;
}): Promise<PeerClickOnly> {
  return withPeer(options.png, ['--timeout-settle', '0'], async (client, url, server) => {
    options.log(`bench peer: ${server}: clicks…`);
    await callOk(client, 'browser_navigate', { url });
    const clicks = await timeRuns(options.samples, 3, (i) =>
      callOk(client, 'browser_mouse_click_xy', at(i)),
    );
    return { server, mouse_click_xy_ms: summarize(clicks) };
  });
}
