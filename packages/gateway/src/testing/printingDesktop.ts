// Test support shared by the gateway's stream tests (flow control, shared frames, passive
// watchers): a real 800×500 Xvnc whose xterm prints constantly, our gateway in front of it, and
// the two checks those tests make again and again — put the pointer where a client says (so
// TigerVNC stops drawing its cursor into the framebuffer) and how far every client's screen is
// from the X screen.
import { pino } from 'pino';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { startGateway, type Gateway } from '../server/gateway.js';
import { waitForScreenMatch } from './desktopCapture.js';
import type { GuacTestClient } from './guacTestClient.js';
import { waitForVisibleWindow } from './xWindows.js';

/** An xterm line every 30 ms, for as long as the desktop runs. */
export const PRINT_FOREVER = 'while :; do date +%s%N; sleep 0.03; done';

export interface PrintingDesktop {
  desktop: LocalDesktop;
  gateway: Gateway;
  /** The connection parameters of a first browser (`select: 'vnc'`). */
  params(): Record<string, string>;
  close(): Promise<void>;
}

/**
 * Starts the desktop with its xterm running `script` (sh -c) and the gateway before it, and waits
 * until the xterm is mapped and printing (under load it can take seconds to map).
 */
export async function startPrintingDesktop(
  options: { script?: string; onFrameEncoded?: () => void } = {},
): Promise<PrintingDesktop> {
  const desktop = await startLocalDesktop({
    width: 800,
    height: 500,
    xterm: {
      command: ['sh', '-c', options.script ?? PRINT_FOREVER],
      geometry: '40x10+10+10',
    },
  });
  const gateway = await startGateway({
    port: 0,
    vncUnixSockets: [desktop.rfbPath],
    logger: pino({ level: 'silent' }),
    keepAliveMs: 300,
    ...(options.onFrameEncoded ? { onFrameEncoded: options.onFrameEncoded } : {}),
  });
  await waitForVisibleWindow(desktop.env, 'xterm');
  await new Promise((resolve) => setTimeout(resolve, 300));
  return {
    desktop,
    gateway,
    params: () => ({ hostname: desktop.rfbPath }),
    close: async () => {
      await gateway.close();
      await desktop.stop();
    },
  };
}

/**
 * TigerVNC draws the cursor into the framebuffer while the pointer is where this client did
 * not put it (xwd never shows it), and only stops when the pointer actually moves: move it.
 * Use a spot no earlier test of the same desktop left it at.
 */
export function claimPointer(client: GuacTestClient, x: number, y: number): void {
  client.send('mouse', x - 1, y - 1, 0);
  client.send('mouse', x, y, 0);
}

/**
 * How far each client's screen is from the X screen once it converged or gave up waiting: every
 * entry `{ mismatches: 0 }` when all are exact.
 */
export async function screenDifferences(
  desktop: LocalDesktop,
  clients: readonly GuacTestClient[],
): Promise<unknown[]> {
  const differences: unknown[] = [];
  for (const client of clients) {
    differences.push(await waitForScreenMatch(desktop.env, () => client.screen));
  }
  return differences;
}
