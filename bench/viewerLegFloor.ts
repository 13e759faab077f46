// The floor of the viewer leg on this machine right now: a WebSocket message from a Node process
// to a page in the bench's headless Chromium and straight back (the page echoes it; no app, no
// React, no policy), paced like the bridge's loops. Every relayed tool call crosses this leg
// once, so the MCP SDK floor plus this floor is the least any relayed call can take here.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CdpBrowser, CdpPage } from './cdpBrowser.js';
import { WebSocketServer, type WebSocket } from 'ws';
import { timeRuns } from './mcpClient.js';
import { summarize, type Summary } from './stats.js';

/** A message about the size of a draw_overlay tool_call. */
const MESSAGE = JSON.stringify({ type: 'tool_call', id: 'call_1', pad: 'x'.repeat(180) });

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    // The page must come from loopback too: Chromium blocks a public page (about:blank) from
    // opening sockets to local addresses.
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

export async function viewerLegFloor(
  browser: CdpBrowser,
  samples: number,
  gapMs: number,
): Promise<Summary> {
  const server = createServer((_request, response) => response.end('<!doctype html><title>echo'));
  const sockets = new WebSocketServer({ server });
  const port = await listen(server);
  let timer: NodeJS.Timeout | undefined;
  const connected = new Promise<WebSocket>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error('the echo page never connected')), 15_000);
    sockets.once('connection', resolve);
  });
  connected.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
  let page: CdpPage | undefined;
  try {
    // The page opens the socket as soon as it loads.
    page = await browser.newPage(`http://127.0.0.1:${port}/`, {
      initScript: `addEventListener('load', () => { const ws = new WebSocket('ws://127.0.0.1:${port}/'); ws.onmessage = (e) => ws.send(e.data); });`,
    });
    const socket = await connected;
    const once = () =>
      new Promise<void>((resolve) => {
        socket.once('message', () => resolve());
        socket.send(MESSAGE);
      });
    return summarize(await timeRuns(samples, 20, once, gapMs));
  } finally {
    clearTimeout(timer);
    await page?.close().catch(() => undefined);
    sockets.close();
    server.close();
  }
}
