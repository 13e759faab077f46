// Desktops on a real Xvnc for frame benchmarks. The typical one is what `serve --desktop local`
// shows a person: openbox and an xterm with a page of text. The busy one is a worst case: an
// xterm covering the screen with random characters on random 256-colour backgrounds (many
// colours per tile, so ZRLE and PNG both work hard), a patterned root window and a second
// xterm with a directory listing. X clients reach them with `desktop.env` (DISPLAY and the X
// cookie in XAUTHORITY).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { RfbClient, startLocalDesktop, type LocalDesktop } from '@overlay-companion/gateway';

const run = promisify(execFile);

const NOISE =
  'awk \'BEGIN{srand(7); for(i=0;i<12000;i++) printf "\\033[48;5;%dm\\033[38;5;%dm%c", int(rand()*256), int(rand()*256), 33+int(rand()*90)}\'; exec cat';

export async function startTypicalDesktop(): Promise<LocalDesktop> {
  const desktop = await startLocalDesktop({
    xterm: { command: ['sh', '-c', 'ls -l /usr/bin | head -40; exec cat'] },
  });
  await new Promise((resolve) => setTimeout(resolve, 1500)); // let the xterm draw its text
  return desktop;
}

export async function startBusyDesktop(): Promise<LocalDesktop> {
  const desktop = await startLocalDesktop({
    xterm: { command: ['sh', '-c', NOISE], geometry: '183x50+0+0' },
  });
  await run('xsetroot', ['-mod', '3', '5', '-fg', '#e08020', '-bg', '#203040'], {
    env: desktop.env,
  });
  desktop.spawnClient('xterm', [
    '-geometry',
    '80x20+700+500',
    '-e',
    'sh',
    '-c',
    'ls -l /usr/bin | head -60; exec cat',
  ]);
  // xterm needs a moment to start and draw; a fixed settle time keeps the bench simple.
  await new Promise((resolve) => setTimeout(resolve, 4000));
  return desktop;
}

/** Requests a full update and resolves when rectangles covering the whole screen arrived. */
export function fullFrame(client: RfbClient): Promise<{ decodeMs: number; wallMs: number }> {
  const decodeBefore = client.stats.decodeMs;
  const start = performance.now();
  let area = 0;
  return new Promise((resolve) => {
    const onRect = (rect: { width: number; height: number }) => {
      area += rect.width * rect.height;
    };
    const onEnd = () => {
      // TigerVNC may answer a full request with only the desktop-size rectangle first.
      if (area < client.width * client.height) return client.requestUpdate(true);
      client.off('rect', onRect);
      client.off('frameEnd', onEnd);
      resolve({
        decodeMs: client.stats.decodeMs - decodeBefore,
        wallMs: performance.now() - start,
      });
    };
    client.on('rect', onRect);
    client.on('frameEnd', onEnd);
    client.requestUpdate(false);
  });
}
