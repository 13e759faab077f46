// The gateway against a real Xvnc: what the browser sees equals the X screen pixel for pixel,
// keys type into a real xterm, the pointer lands on the exact pixel, `size` resizes the X
// desktop, the clipboard works both ways, and a second browser can join the same connection.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { captureRoot, compareRgba, waitForScreenMatch } from '../testing/desktopCapture.js';
import { waitForVisibleWindow } from '../testing/xWindows.js';
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

  const open = async (
    params: Record<string, string> = {},
    select = 'vnc',
  ): Promise<GuacTestClient> => {
    const client = await GuacTestClient.connect(gateway, {
      select,
      params: { hostname: desktop.rfbPath, ...params },
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
      vncUnixSockets: [desktop.rfbPath],
      logger: pino({ level: 'silent' }),
    });
    // Let the window manager and xterm map before anyone compares pixels.
    await waitForVisibleWindow(desktop.env, 'xterm');
    await new Promise((resolve) => setTimeout(resolve, 500));
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await gateway?.close();
    await desktop?.stop();
    await rm(workDir, { recursive: true, force: true });
  });

  it('sends size, then a first frame equal to xwd -root pixel for pixel', async () => {
    // TigerVNC draws the cursor into the framebuffer while the pointer is away from where this
    // client last put it (a new client: 0,0); xwd never shows the cursor. Park it at 0,0.
    await x('xdotool', ['mousemove', '0', '0']);
    const client = await open();
    expect(client.errors).toEqual([]);
    expect(client.connectionId).toMatch(/^\$[0-9a-f-]{36}$/);
    expect(gateway.connectionIds()).toContain(client.connectionId);
    await client.waitForFrames(1);
    expect(client.received.find((i) => i.opcode === 'size')?.args).toEqual(['0', '1024', '640']);
    // The very first frame, not an eventual one: the desktop is idle, so it must match now.
    expect(compareRgba(await captureRoot(desktop.env), client.screen)).toEqual({
      mismatches: 0,
    });
    expect(client.cursor).toBeDefined();
    client.close();
  });

  it('types keysyms into a real xterm', async () => {
    const client = await open();
    await client.waitForFrames(1);
    // Click into the xterm first (the window manager may not have focused it).
    client.send('mouse', 120, 90, 0);
    client.send('mouse', 120, 90, 1);
    client.send('mouse', 120, 90, 0);
    await expect
      .poll(() => x('xdotool', ['getwindowfocus', 'getwindowname']), { timeout: 5000 })
      .toMatch(/cat|sh|xterm/);
    for (const char of 'hello gateway') {
      const keysym = char.codePointAt(0) ?? 0;
      client.send('key', keysym, 1);
      client.send('key', keysym, 0);
    }
    client.send('key', 0xff0d, 1); // Return: cat writes the line
    client.send('key', 0xff0d, 0);
    await expect
      .poll(() => readFile(typedFile, 'utf8').catch(() => ''), { timeout: 10_000 })
      .toBe('hello gateway\n');
    client.close();
  });

  it('puts the pointer on the exact pixel', async () => {
    const client = await open();
    await client.waitForFrames(1);
    client.send('mouse', 123, 77, 0);
    await expect
      .poll(() => x('xdotool', ['getmouselocation']), { timeout: 5000 })
      .toMatch(/^x:123 y:77 /);
    client.send('mouse', 1023, 639, 0);
    await expect
      .poll(() => x('xdotool', ['getmouselocation']), { timeout: 5000 })
      .toMatch(/^x:1023 y:639 /);
    client.close();
  });

  it('ignores all input from a read-only browser (read-only is mapped by its position)', async () => {
    const client = await open();
    await client.waitForFrames(1);
    client.send('mouse', 40, 50, 0);
    await expect
      .poll(() => x('xdotool', ['getmouselocation']), { timeout: 5000 })
      .toMatch(/^x:40 y:50 /);
    const readOnly = await open({ 'read-only': 'true' });
    await readOnly.waitForFrames(1);
    readOnly.send('mouse', 300, 200, 0);
    readOnly.send('size', 640, 480);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await x('xdotool', ['getmouselocation'])).toMatch(/^x:40 y:50 /);
    expect(await x('xdotool', ['getdisplaygeometry'])).toBe('1024 640\n');
    readOnly.close();
    client.close();
  });

  it('resizes the X desktop on a browser size instruction and redraws it', async () => {
    const client = await open();
    await client.waitForFrames(1);
    client.send('size', 800, 600);
    await expect
      .poll(() => x('xdotool', ['getdisplaygeometry']), { timeout: 10_000 })
      .toBe('800 600\n');
    await client.waitFor(
      () => client.screen.width === 800 && client.screen.height === 600,
      'size,0,800,600',
    );
    client.send('mouse', 700, 500, 0);
    expect(await waitForScreenMatch(desktop.env, () => client.screen)).toEqual({
      mismatches: 0,
    });
    client.send('size', 1024, 640);
    await expect
      .poll(() => x('xdotool', ['getdisplaygeometry']), { timeout: 10_000 })
      .toBe('1024 640\n');
    await client.waitFor(() => client.screen.width === 1024, 'size back to 1024');
    client.close();
  });

  it('carries the clipboard both ways', async () => {
    const client = await open();
    await client.waitForFrames(1);
    client.sendClipboard('from the browser: ünïcode ✓');
    await expect
      .poll(() => x('xclip', ['-selection', 'clipboard', '-o']).catch(() => ''), {
        timeout: 10_000,
      })
      .toBe('from the browser: ünïcode ✓');

    const xclip = spawn('xclip', ['-quiet', '-selection', 'clipboard', '-i'], {
      env: desktop.env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    try {
      xclip.stdin.end('from the desktop: ∑ ok');
      await client.waitFor(
        () => client.clipboard.includes('from the desktop: ∑ ok'),
        'clipboard from the desktop',
      );
    } finally {
      xclip.kill();
    }
    client.close();
  });

  it('lets a second browser join with select $id and see the same frames', async () => {
    const owner = await open();
    await owner.waitForFrames(1);
    owner.send('mouse', 900, 600, 0);
    const joiner = await GuacTestClient.connect(gateway, { select: owner.connectionId });
    clients.push(joiner);
    expect(joiner.errors).toEqual([]);
    expect(joiner.connectionId).toBe(owner.connectionId);
    await joiner.waitForFrames(1);
    expect(joiner.received.find((i) => i.opcode === 'size')?.args).toEqual(['0', '1024', '640']);
    expect(joiner.cursor).toBeDefined();
    expect(await waitForScreenMatch(desktop.env, () => joiner.screen)).toEqual({
      mismatches: 0,
    });

    // Input from the joined browser reaches the desktop; both browsers see the result.
    joiner.send('mouse', 901, 601, 0);
    await expect
      .poll(() => x('xdotool', ['getmouselocation']), { timeout: 5000 })
      .toMatch(/^x:901 y:601 /);
    for (const char of 'joined') {
      joiner.send('key', char.codePointAt(0) ?? 0, 1);
      joiner.send('key', char.codePointAt(0) ?? 0, 0);
    }
    expect(await waitForScreenMatch(desktop.env, () => joiner.screen)).toEqual({
      mismatches: 0,
    });
    expect(await waitForScreenMatch(desktop.env, () => owner.screen)).toEqual({
      mismatches: 0,
    });
    expect(compareRgba(owner.screen, joiner.screen)).toEqual({ mismatches: 0 });
    expect(gateway.connectionIds()).toContain(owner.connectionId);

    // The connection outlives its owner while someone is still joined, and ends with the last.
    owner.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(gateway.connectionIds()).toContain(owner.connectionId);
    joiner.close();
    await expect
      .poll(() => gateway.connectionIds().includes(owner.connectionId), { timeout: 5000 })
      .toBe(false);
  });
});
