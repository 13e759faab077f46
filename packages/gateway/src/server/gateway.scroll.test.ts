// Scrolling text becomes moves, not pictures, on a real Xvnc: an xterm scrolls numbered lines
// while the gateway's RFB client does not offer CopyRect, so every `copy` the browser gets was
// found by the gateway itself (rows compared before and after each update). Most of each frame
// then travels as moves plus the few new lines, and the result stays pixel-exact against
// `xwd -root`. With CopyRect offered (the default), the server's own moves arrive as `copy`
// too, and the picture is exact as well.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { Encoding, RfbClient } from '../rfb/index.js';
import { waitForScreenMatch } from '../testing/desktopCapture.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { waitForVisibleWindow } from '../testing/xWindows.js';
import { startGateway, type Gateway, type GatewayOptions } from './gateway.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the RFB client offers when it must not receive CopyRect. */
const WITHOUT_COPYRECT = [
  Encoding.Raw,
  Encoding.ExtendedDesktopSize,
  Encoding.DesktopSize,
  Encoding.Cursor,
  Encoding.LastRect,
];

describe('gateway on a scrolling terminal', () => {
  let desktop: LocalDesktop;
  let dir: string;
  let runFile: string;
  const gateways: Gateway[] = [];
  const clients: GuacTestClient[] = [];
  const xterm = { width: 0, height: 0 };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-gw-scroll-'));
    runFile = join(dir, 'run');
    desktop = await startLocalDesktop({
      width: 800,
      height: 500,
      xterm: {
        command: [
          'sh',
          '-c',
          // Long lines: a scroll moves whole rows of text, not a narrow column of numbers.
          `i=1; while :; do if [ -e ${runFile} ]; then seq -f '%g: the quick brown fox jumps over the lazy dog 0123456789' $i $((i+2)); i=$((i+3)); fi; sleep 0.05; done`,
        ],
        geometry: '80x24+10+10',
      },
    });
    await waitForVisibleWindow(desktop.env, 'xterm');
    // 80x24 cells of DejaVu Sans Mono 11: about 640×408 pixels.
    Object.assign(xterm, { width: 640, height: 408 });
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    for (const gateway of gateways) await gateway.close();
    await desktop?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Connects through a new gateway, parks the pointer at (`px`, 499), scrolls, stops. */
  async function scroll(options: Partial<GatewayOptions>, px: number): Promise<GuacTestClient> {
    // One browser at a time: TigerVNC draws the pointer into the pixels of clients that did
    // not put it where it is.
    for (const client of clients) client.close();
    const gateway = await startGateway({
      port: 0,
      vncUnixSockets: [desktop.rfbPath],
      logger: pino({ level: 'silent' }),
      ...options,
    });
    gateways.push(gateway);
    const client = await GuacTestClient.connect(gateway, {
      select: 'vnc',
      params: { hostname: desktop.rfbPath },
      size: [800, 500],
    });
    clients.push(client);
    await client.waitForFrames(1);
    // TigerVNC draws the pointer into the pixels until this client has moved it (xwd never
    // shows it); each test parks it somewhere new, clear of the xterm.
    client.send('mouse', px - 1, 498, 0);
    client.send('mouse', px, 499, 0);
    await sleep(300);
    await writeFile(runFile, '');
    await sleep(1500);
    await rm(runFile, { force: true });
    return client;
  }

  it('finds the scroll itself when the server sends no CopyRect, and stays exact', async () => {
    const client = await scroll(
      { connectRfb: (options) => RfbClient.connect({ ...options, encodings: WITHOUT_COPYRECT }) },
      799,
    );
    expect(await waitForScreenMatch(desktop.env, () => client.screen)).toEqual({ mismatches: 0 });
    // Every copy here is the gateway's own finding (the server sends no CopyRect). How many
    // depends on how many frames the 1.5 s of scrolling became — fewer, bigger ones on a loaded
    // machine (6 seen beside a full test run, 12 alone) — so ask for several scroll frames' worth.
    const copies = client.received.filter((i) => i.opcode === 'copy');
    expect(copies.length).toBeGreaterThanOrEqual(4);
    // Per frame, the images cover far less than the scrolling window: the rest was moved.
    const perFrame = new Map<number, number>();
    for (const image of client.images.filter((i) => i.frame > 1)) {
      perFrame.set(image.frame, (perFrame.get(image.frame) ?? 0) + image.width * image.height);
    }
    const areas = [...perFrame.values()].sort((a, b) => a - b);
    const median = areas[Math.floor(areas.length / 2)] ?? Infinity;
    expect(areas.length).toBeGreaterThan(5);
    expect(median).toBeLessThan((xterm.width * xterm.height) / 4);
  });

  it("replays the server's own CopyRect moves and stays exact", async () => {
    const client = await scroll({}, 760);
    expect(await waitForScreenMatch(desktop.env, () => client.screen)).toEqual({ mismatches: 0 });
    // As above: a loaded machine turns the scrolling into fewer frames.
    expect(client.received.filter((i) => i.opcode === 'copy').length).toBeGreaterThanOrEqual(4);
  });
});
