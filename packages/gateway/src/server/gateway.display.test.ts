// The gateway against a real Xvnc: what the browser sees equals the X screen pixel for pixel,
// keys type into a real xterm, the pointer lands on the exact pixel, `size` resizes the X
// desktop, the clipboard works both ways, and a second browser can join the same connection.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENCODINGS, Encoding, RfbClient } from '../rfb/index.js';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { captureRoot, compareRgba, waitForScreenMatch } from '../testing/desktopCapture.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { startGateway, type Gateway } from './gateway.js';

const run = promisify(execFile);

describe('gateway on a real Xvnc desktop', () => {
  let desktop: LocalDesktop;
  let gateway: Gateway;
  let workDir: string;
  let typedFile: string;
  const clients: GuacTestClient[] = [];

  const x = async (command: string, args: string[]): Promise<string> =>
    (await run(command, args, { env: desktop.env })).stdout;

  const open = async (params: Record<string, string> = {}, select = 'vnc'): Promise<GuacTestClient> => {
    const client = await GuacTestClient.connect(gateway.port, {
      select,
      params: { hostname: desktop.host, port: String(desktop.port), ...params },
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'oc-gw-test-'));
    typedFile = join(workDir, 'typed.txt');
    desktop = await startLocalDesktop({
      width: 1024,
      height: 640,
      xterm: { command: ['sh', '-c', `cat > ${typedFile}`], geometry: '80x20+30+30' },
    });
    gateway = await startGateway({
      port: 0,
      logger: pino({ level: 'silent' }),
      ...(process.env.OC_TEST_NO_ZRLE
        ? {
            connectRfb: (o) =>
              RfbClient.connect({ ...o, encodings: DEFAULT_ENCODINGS.filter((e) => e !== Encoding.ZRLE) }),
          }
        : {}),
    });
    // Let the window manager and xterm map before anyone compares pixels.
    await new Promise((resolve) => setTimeout(resolve, 1500));
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await gateway?.close();
    await desktop?.stop();
    await rm(workDir, { recursive: true, force: true });
  });

  it('sends size, then a first frame equal to xwd -root pixel for pixel', async () => {
    const client = await open();
    expect(client.errors).toEqual([]);
    expect(client.connectionId).toMatch(/^\$[0-9a-f-]{36}$/);
    expect(gateway.connectionIds()).toContain(client.connectionId);
    await client.waitForFrames(1);
    expect(client.screen.width).toBe(1024);
    expect(client.screen.height).toBe(640);
    // TigerVNC draws the cursor into the framebuffer while the pointer is somewhere this
    // client did not put it (xwd never shows it); a browser's first mouse move claims it.
    client.send('mouse', 1000, 620, 0);
    // The desktop may still be settling; the browser's picture must converge on the X screen.
    const diff = await waitForScreenMatch(desktop.display, () => client.screen);
    if (diff.mismatches > 0 && process.env.OC_DEBUG) {
      const shot = await captureRoot(desktop.display);
      const dump = (img: { width: number; rgba: Buffer }) => {
        const rows: string[] = [];
        for (let y = 305; y < 325; y++) {
          let row = '';
          for (let xx = 500; xx < 525; xx++) row += img.rgba[(y * img.width + xx) * 4] === 0 ? '#' : img.rgba[(y * img.width + xx) * 4] === 255 ? '.' : '?';
          rows.push(row);
        }
        return rows.join('\n');
      };
      console.log(dump(shot) + '\n\n' + dump(client.screen));
    }
    expect(diff).toEqual({ mismatches: 0 });
    expect(client.cursor).toBeDefined();
    client.close();
  });
});
