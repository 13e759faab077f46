// Input and desktop control against a real Xvnc, observed from the X side: pointer position
// (xdotool), keysyms typed into an xterm running `cat > FILE`, SetDesktopSize (xdpyinfo), the
// cursor shape, and the clipboard both ways (xclip), UTF-8 and Latin-1.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { eventually, nextEvent, waitForScreenMatch } from '../testing/index.js';
import { RfbClient, type RfbCursor } from './client.js';
import { DEFAULT_ENCODINGS, Encoding } from './encodings.js';

const run = promisify(execFile);
const XK_Return = 0xff0d;

describe('RfbClient input against a real Xvnc', () => {
  let desktop: LocalDesktop;
  let dir: string;
  let typed: string;
  let client: RfbClient;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rfb-input-'));
    typed = join(dir, 'typed.txt');
    desktop = await startLocalDesktop({
      xterm: { command: ['sh', '-c', `cat > ${typed}`], geometry: '60x10+100+100' },
    });
    client = await RfbClient.connect({ path: desktop.rfbPath });
    client.on('error', (error) => {
      throw error; // fails the running test loudly instead of timing out later
    });
    client.on('frameEnd', () => client.requestUpdate(true));
    client.requestUpdate(false);
  });
  afterAll(async () => {
    client.close();
    await desktop.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('pointer() lands on the exact pixel', async () => {
    for (const [x, y] of [
      [123, 456],
      [0, 0],
      [1279, 799],
    ] as const) {
      client.pointer(x, y, 0);
      await eventually(`pointer at ${x},${y}`, async () => {
        const { stdout } = await run('xdotool', ['getmouselocation'], { env: desktop.env });
        return stdout.startsWith(`x:${x} y:${y} `) ? true : undefined;
      });
    }
  });

  test('confirmDelivery() answers once X has the input: the pointer is there at once', async () => {
    // Xvnc answers a fence request with one of its own when it sees the pseudo-encoding.
    await eventually('fence support', async () =>
      (await client.confirmDelivery()) === 'server' ? true : undefined,
    );
    for (const [x, y] of [
      [211, 311],
      [5, 7],
      [640, 400],
    ] as const) {
      client.pointer(x, y, 0);
      expect(await client.confirmDelivery()).toBe('server');
      const { stdout } = await run('xdotool', ['getmouselocation'], { env: desktop.env });
      expect(stdout).toMatch(new RegExp(`^x:${x} y:${y} `));
    }
  });

  test('confirmDelivery() waits while the VNC server is stopped, and answers when it runs', async () => {
    process.kill(desktop.pid, 'SIGSTOP');
    let answer: string | undefined;
    try {
      client.pointer(77, 88, 0);
      const confirmed = client.confirmDelivery().then((a) => (answer = a));
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Nothing can have processed the input: a confirmation now would be a lie.
      expect(answer).toBeUndefined();
      process.kill(desktop.pid, 'SIGCONT');
      await confirmed;
    } finally {
      process.kill(desktop.pid, 'SIGCONT');
    }
    expect(answer).toBe('server');
    const { stdout } = await run('xdotool', ['getmouselocation'], { env: desktop.env });
    expect(stdout).toMatch(/^x:77 y:88 /);
  });

  test('cursor shape arrives with sane dimensions', async () => {
    const cursors: RfbCursor[] = [];
    client.on('cursor', (c) => cursors.push(c));
    // Over the xterm the X server shows the text cursor, a real non-empty shape.
    client.pointer(300, 200, 0);
    const cursor = await eventually('a non-empty cursor', () =>
      Promise.resolve(cursors.find((c) => c.width > 0)),
    );
    expect(cursor.width).toBeLessThanOrEqual(128);
    expect(cursor.height).toBeGreaterThan(0);
    expect(cursor.height).toBeLessThanOrEqual(128);
    expect(cursor.rgba.length).toBe(cursor.width * cursor.height * 4);
    expect(cursor.hotX).toBeLessThan(cursor.width);
    expect(cursor.hotY).toBeLessThan(cursor.height);
    const alphas = new Set([...cursor.rgba].filter((_, i) => i % 4 === 3));
    expect(alphas.has(255)).toBe(true);
  });

  test('key() keysyms type into an xterm running cat', async () => {
    // Click into the xterm so it has the keyboard focus.
    client.pointer(300, 200, 0);
    await eventually('pointer over the xterm', async () => {
      const { stdout } = await run('xdotool', ['getmouselocation'], { env: desktop.env });
      return stdout.startsWith('x:300 y:200 ') ? true : undefined;
    });
    client.pointer(300, 200, 1);
    client.pointer(300, 200, 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const ch of 'hello rfb 42') {
      client.key(ch.charCodeAt(0), true);
      client.key(ch.charCodeAt(0), false);
    }
    client.key(XK_Return, true);
    client.key(XK_Return, false);
    const text = await eventually('typed text in the file', async () => {
      const content = await readFile(typed, 'utf8');
      return content.includes('\n') ? content : undefined;
    });
    expect(text).toBe('hello rfb 42\n');
  });

  test('clipboard from X arrives as UTF-8 over Extended Clipboard', async () => {
    expect(client.extendedClipboard).toBe(true);
    const text = 'grüße → 日本語 ✓';
    const arrived = nextEvent<[string]>(client, 'clipboard', 5000, (t) => t === text);
    const xclip = spawn('xclip', ['-selection', 'clipboard', '-i'], {
      env: desktop.env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    xclip.stdin.end(text);
    expect(await arrived).toEqual([text]);
  });

  test('setClipboard() reaches X as UTF-8 over Extended Clipboard', async () => {
    const text = 'from the browser: ümlaut ☃ 漢字\nsecond line';
    client.setClipboard(text);
    const got = await eventually('X clipboard content', async () => {
      const { stdout } = await run('xclip', ['-selection', 'clipboard', '-o'], {
        env: desktop.env,
        timeout: 3000,
      });
      return stdout === text ? stdout : undefined;
    });
    expect(got).toBe(text);
  });

  test('setDesktopSize() resizes the X screen and a resize event arrives', async () => {
    await eventually('SetDesktopSize support', () =>
      Promise.resolve(client.supportsSetDesktopSize || undefined),
    );
    const resized = nextEvent<[{ width: number; height: number }]>(client, 'resize', 5000);
    client.setDesktopSize(1024, 700);
    expect(await resized).toEqual([{ width: 1024, height: 700 }]);
    expect(client.framebuffer.length).toBe(1024 * 700 * 4);
    const { stdout } = await run('xdpyinfo', [], { env: desktop.env });
    expect(stdout).toMatch(/dimensions:\s+1024x700 pixels/);
    client.pointer(1023, 699, 0);
    expect(
      await waitForScreenMatch(desktop.env, () => ({
        width: client.width,
        height: client.height,
        rgba: client.framebuffer,
      })),
    ).toEqual({
      mismatches: 0,
    });
  });
});

describe('RfbClient clipboard without Extended Clipboard (Latin-1)', () => {
  let desktop: LocalDesktop;
  let client: RfbClient;
  beforeAll(async () => {
    desktop = await startLocalDesktop({ windowManager: false });
    client = await RfbClient.connect({
      path: desktop.rfbPath,
      encodings: DEFAULT_ENCODINGS.filter((e) => e !== Encoding.ExtendedClipboard),
    });
    client.on('frameEnd', () => client.requestUpdate(true));
    client.requestUpdate(false);
  });
  afterAll(async () => {
    client.close();
    await desktop.stop();
  });

  test('server cut text arrives as Latin-1', async () => {
    expect(client.extendedClipboard).toBe(false);
    const arrived = nextEvent<[string]>(client, 'clipboard', 5000, (t) => t === 'naïve café');
    const xclip = spawn('xclip', ['-selection', 'clipboard', '-i'], {
      env: desktop.env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    xclip.stdin.end('naïve café');
    expect(await arrived).toEqual(['naïve café']);
  });

  test("client cut text goes as Latin-1 with '?' for what Latin-1 cannot hold", async () => {
    client.setClipboard('café ✓ 日本');
    const got = await eventually('X clipboard content', async () => {
      const { stdout } = await run('xclip', ['-selection', 'clipboard', '-o'], {
        env: desktop.env,
        timeout: 3000,
      });
      return stdout.startsWith('café') ? stdout : undefined;
    });
    expect(got).toBe('café ? ??');
  });
});
