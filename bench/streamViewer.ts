// The viewer side of the streaming bench: the bridge (`serve --guacd <server> --vnc <desktop>`,
// the same command for both servers) and its viewer page in headless Chromium, signed in as the
// admin, its window the desktop's size. A page script counts, on the Guacamole tunnel's
// WebSocket, the characters received (the bytes a person's browser downloads: all ASCII) and
// the `sync` replies sent — guacamole-common-js replies only once a frame is drawn, so that is
// frames painted. Latency is read from the display canvas itself, the moment a draw puts the
// awaited colour there (cdpBrowser.ts says why the page runs without Playwright).
import sharp from 'sharp';
import { startStack, type RemoteStack } from '../e2e/support/bridgeProcess.js';
import { adminSession } from '../e2e/support/signIn.js';
import type { CdpBrowser, CdpPage } from './cdpBrowser.js';

export interface TunnelCounters {
  framesPainted: number;
  charsReceived: number;
  /** `img` instructions received, by mimetype. */
  images: { png: number; jpeg: number; webp: number };
}

export interface StreamViewer {
  stack: RemoteStack;
  page: CdpPage;
  counters(): Promise<TunnelCounters>;
  /** The display canvas's pixels (desktop size), as RGBA. */
  picture(width: number, height: number): Promise<Buffer>;
  /** Resolves with the page's wall-clock time once desktop pixel (x, y) shows `rgb`. */
  waitForPixel(x: number, y: number, rgb: readonly [number, number, number]): Promise<number>;
  stop(): Promise<void>;
}

/** Page script (a string: tsx's helpers do not exist in the page). */
export const COUNT_TUNNEL = `(() => {
  const counters = { framesPainted: 0, charsReceived: 0, images: { png: 0, jpeg: 0, webp: 0 } };
  const count = (text, needle) => {
    let n = 0;
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) n++;
    return n;
  };
  window.__ocStream = counters;
  const Original = window.WebSocket;
  class Counted extends Original {
    constructor(url, protocols) {
      super(url, protocols);
      if (!String(url).includes('/tunnel')) return;
      this.addEventListener('message', (event) => {
        if (typeof event.data !== 'string') return;
        counters.charsReceived += event.data.length;
        for (const type of ['png', 'jpeg', 'webp'])
          counters.images[type] += count(event.data, ',' + (6 + type.length) + '.image/' + type + ',');
      });
      const send = this.send.bind(this);
      this.send = (data) => {
        if (typeof data === 'string') counters.framesPainted += count(data, '4.sync,');
        send(data);
      };
    }
  }
  window.WebSocket = Counted;
})()`;

/**
 * Page script: resolves with the page's wall-clock time once desktop pixel (x, y) of the
 * display canvas is within 8 of `rgb` on every channel. The pixel is checked right after every
 * draw into a canvas (drawImage, fill, fillRect, putImageData — whatever the server's frame
 * used), so the time is when the pixel landed; a 4 ms poll backs that up. (A poll alone, as the
 * viewer section's paint bench does, adds 0–4 ms of timer granularity to every sample.)
 */
const WAIT_FOR_PIXEL = `(({ x, y, rgb }) => new Promise((resolve, reject) => {
  const canvases = [...document.querySelectorAll('.remote-display__canvas canvas')];
  const canvas = canvases.sort((a, b) => b.width * b.height - a.width * a.height)[0];
  const context = canvas && canvas.getContext('2d', { willReadFrequently: true });
  if (!context) return reject(new Error('no display canvas'));
  const proto = CanvasRenderingContext2D.prototype;
  if (!window.__ocDrawHook) {
    window.__ocDrawHook = true;
    for (const name of ['drawImage', 'fill', 'fillRect', 'putImageData']) {
      const original = proto[name];
      proto[name] = function (...args) {
        const result = original.apply(this, args);
        if (window.__ocWatch && this.canvas === window.__ocWatch.canvas) window.__ocWatch.check();
        return result;
      };
    }
  }
  const done = (fn) => { clearInterval(poll); clearTimeout(timeout); window.__ocWatch = undefined; fn(); };
  const check = () => {
    const d = context.getImageData(x, y, 1, 1).data;
    if (Math.abs(d[0] - rgb[0]) < 8 && Math.abs(d[1] - rgb[1]) < 8 && Math.abs(d[2] - rgb[2]) < 8) {
      const at = performance.timeOrigin + performance.now();
      done(() => resolve(at));
    }
  };
  window.__ocWatch = { canvas, check };
  const poll = setInterval(check, 4);
  const timeout = setTimeout(() => done(() => reject(new Error('pixel never became ' + rgb.join(',')))), 10000);
  check();
}))`;

/** Page script: the biggest display canvas as a PNG data URL. */
const PICTURE = `(() => {
  const canvases = [...document.querySelectorAll('.remote-display__canvas canvas')];
  const canvas = canvases.sort((a, b) => b.width * b.height - a.width * a.height)[0];
  if (!canvas) throw new Error('no display canvas');
  return canvas.toDataURL('image/png');
})()`;

const CONNECTED = `(() => { const label = document.querySelector('[data-testid="connection-label"]'); return !!label && label.textContent.includes('Connected') && !!document.querySelector('[data-testid="desktop-size"]'); })()`;

export async function openStreamViewer(
  browser: CdpBrowser,
  options: {
    guacdPort: number;
    vncPort: number;
    width: number;
    height: number;
    /** More `serve` flags (the recording bench: `--record`). */
    flags?: string[];
  },
): Promise<StreamViewer> {
  const stack = await startStack({
    source: ['--vnc', `127.0.0.1:${String(options.vncPort)}`],
    flags: ['--guacd', `127.0.0.1:${String(options.guacdPort)}`, ...(options.flags ?? [])],
    mcp: false,
    // OC_BENCH_BRIDGE_PROFILE=<dir>: the bridge writes a V8 CPU profile there when it stops.
    nodeArgs: process.env.OC_BENCH_BRIDGE_PROFILE
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.OC_BENCH_BRIDGE_PROFILE}`]
      : [],
  });
  let page: CdpPage | undefined;
  const stop = async () => {
    await page?.close().catch(() => undefined);
    await stack.stop();
  };
  try {
    const session = await adminSession(stack);
    const at = session.cookie.indexOf('=');
    page = await browser.newPage(stack.url, {
      initScript: COUNT_TUNNEL,
      width: options.width,
      height: options.height,
      cookies: [{ name: session.cookie.slice(0, at), value: session.cookie.slice(at + 1) }],
    });
    const opened = page;
    const deadline = Date.now() + 30_000;
    while (!(await opened.evaluate<boolean>(CONNECTED).catch(() => false))) {
      if (Date.now() > deadline) {
        throw new Error(`The viewer never connected and showed the desktop.\n${stack.output()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return {
      stack,
      page: opened,
      counters: () =>
        opened.evaluate<TunnelCounters>(
          '({ ...window.__ocStream, images: { ...window.__ocStream.images } })',
        ),
      picture: async (width, height) => {
        const url = await opened.evaluate<string>(PICTURE);
        const png = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
        // The layer's canvas is padded to multiples of 64 pixels: keep the desktop's part.
        return sharp(png)
          .extract({ left: 0, top: 0, width, height })
          .ensureAlpha()
          .raw()
          .toBuffer();
      },
      waitForPixel: (x, y, rgb) =>
        opened.evaluate<number>(`${WAIT_FOR_PIXEL}(${JSON.stringify({ x, y, rgb })})`),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
