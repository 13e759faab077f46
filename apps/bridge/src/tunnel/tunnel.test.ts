// The tunnel end to end with real parts, wired as `serve --desktop local` wires them: a real
// bridge with sign-in (SQLite store, an admin), the real embedded gateway on a Unix socket and a
// real Xvnc desktop on a Unix socket (openbox + an xterm running `cat > FILE`), driven by a real
// `ws` client with a tunnel ticket that checks the framing rules on every message.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  startGateway,
  startLocalDesktop,
  type UnixGateway,
  type LocalDesktop,
} from '@overlay-companion/gateway';
import { GuacStatus } from '@overlay-companion/guac';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { startBridge, type RunningBridge } from '../bridge.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';

const run = promisify(execFile);
const UUID_MESSAGE = /^0\.,36\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12};$/;
const KEY = { h: 0x68, i: 0x69, Return: 0xff0d };

let workDir: string;
let typedFile: string;
let desktop: LocalDesktop;
let gateway: UnixGateway;
let fixture: TestAccess;
let bridge: RunningBridge;
const clients: TunnelClient[] = [];

async function openTunnel(query?: string): Promise<TunnelClient> {
  const client = await TunnelClient.open(bridge.url, await fixture.ticket('tunnel'), query);
  clients.push(client);
  return client;
}

/** The gateway's connection id behind the tunnel the browser knows by `readyId` ($<uuid>). */
function connectionIdOf(readyId: string | undefined): string | undefined {
  return bridge.tunnels.list().find((t) => `$${t.uuid}` === readyId)?.connectionId;
}

async function screenSize(): Promise<{ width: number; height: number }> {
  const { stdout } = await run('xdotool', ['getdisplaygeometry'], { env: desktop.env });
  const [width, height] = stdout.trim().split(/\s+/).map(Number);
  return { width: width ?? 0, height: height ?? 0 };
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'oc-tunnel-'));
  typedFile = join(workDir, 'typed.txt');
  desktop = await startLocalDesktop({
    password: 'tunnel1',
    windowManager: true,
    xterm: { command: ['sh', '-c', `cat > ${typedFile}`], geometry: '80x20+0+0' },
  });
  gateway = await startGateway({
    path: join(workDir, 'gateway.sock'),
    vncUnixSockets: [desktop.rfbPath],
    logger: silentLogger(),
  });
  fixture = await startTestAccess();
  bridge = await startBridge(
    {
      host: '127.0.0.1',
      port: 0,
      webRoot: workDir,
      guacd: { path: gateway.path },
      connection: { protocol: 'vnc', params: { hostname: desktop.rfbPath, password: 'tunnel1' } },
    },
    { access: fixture.access },
  );
});

// A person's tunnels share one connection: each test starts with none open.
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await bridge?.close();
  await fixture?.close();
  await gateway?.close();
  await desktop?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('the /tunnel relay', () => {
  it('sends the tunnel UUID first, then ready, size and img in whole-instruction messages', async () => {
    const client = await openTunnel();
    await client.waitForOpcode('img');
    await client.waitForOpcode('sync');
    expect(client.messages[0]?.text).toMatch(UUID_MESSAGE);
    const uuid = /^0\.,36\.(.{36});$/.exec(client.messages[0]?.text ?? '')?.[1];
    const ready = client.instructions[1];
    expect(ready?.opcode).toBe('ready');
    // The browser learns the tunnel's own id, never the gateway's connection id (which would
    // let whoever reaches the gateway join the desktop).
    expect(ready?.args[0]).toBe(`$${uuid}`);
    const connectionId = connectionIdOf(ready?.args[0]);
    expect(gateway.connectionIds()).toContain(connectionId);
    expect(connectionId).not.toBe(ready?.args[0]);
    expect(client.messages.map((m) => m.text).join('')).not.toContain(connectionId);
    expect(client.instructions.some((i) => i.opcode === 'size' && i.args[0] === '0')).toBe(true);
    expect(client.framingErrors).toEqual([]);
    // Several instructions share a message only up to the batch size.
    for (const message of client.messages) {
      if (message.instructions.length > 1) expect(message.text.length).toBeLessThanOrEqual(8192);
    }
    expect(client.messages.length).toBeLessThan(client.instructions.length);
  });

  it('answers the browser ping itself, echoing it unchanged', async () => {
    const client = await openTunnel();
    await client.waitForOpcode('ready');
    const from = client.instructions.length;
    client.sendRaw('0.,4.ping,13.1700000000123;');
    const echo = await client.waitFor((i) => i.opcode === '' && i.args[0] === 'ping', {
      from,
      what: 'ping echo',
    });
    expect(echo.args).toEqual(['ping', '1700000000123']);
    expect(client.isOpen).toBe(true);
  });

  it('speaks UTF-16 lengths to the browser, as guacamole-common-js 1.5.0 counts them', async () => {
    const client = await openTunnel();
    await client.waitForOpcode('ready');
    const from = client.messages.length;
    // 1.5.0 sends String#length: the astral character counts 2. A code-point parser would read
    // the terminator as data and close the tunnel with 768.
    client.sendRaw('0.,4.ping,2.\u{1F600};');
    const echo = await client.waitFor((i) => i.opcode === '' && i.args[0] === 'ping', {
      what: 'astral ping echo',
    });
    expect(echo.args).toEqual(['ping', '\u{1F600}']);
    expect(client.messages.slice(from).map((m) => m.text)).toContain('0.,4.ping,2.\u{1F600};');
    expect(client.isOpen).toBe(true);
  });

  it(
    'delivers keys typed through the tunnel to the xterm on the desktop',
    { timeout: 45_000 },
    async () => {
      // xterm takes a few seconds to map on a busy machine (font loading); wait for its window.
      await eventually(
        'the xterm window to appear',
        async () =>
          (
            await run('xdotool', ['search', '--onlyvisible', '--class', 'xterm'], {
              env: desktop.env,
            }).catch(() => ({ stdout: '' }))
          ).stdout.trim() !== '',
        20_000,
      );
      const client = await openTunnel();
      await client.waitForOpcode('img');
      // Click into the xterm so it has the keyboard focus.
      client.send('mouse', 100, 100, 0);
      client.send('mouse', 100, 100, 1);
      client.send('mouse', 100, 100, 0);
      for (const keysym of [KEY.h, KEY.i, KEY.Return]) {
        client.send('key', keysym, 1);
        client.send('key', keysym, 0);
      }
      await eventually(
        '"hi" typed through the tunnel to reach the file',
        async () => (await readFile(typedFile, 'utf8').catch(() => '')).includes('hi\n'),
        10_000,
      );
    },
  );

  it('ignores connection parameters in the query string', async () => {
    // If hostname/port were honoured, this would aim at a closed port and fail with 519.
    const client = await openTunnel(
      'width=800&height=600&hostname=127.0.0.1&port=1&password=wrong&protocol=rdp',
    );
    const ready = await client.waitForOpcode('ready');
    await client.waitForOpcode('img');
    expect(client.instructions.some((i) => i.opcode === 'error')).toBe(false);
    expect(gateway.connectionIds()).toContain(connectionIdOf(ready.args[0]));
    expect(client.isOpen).toBe(true);
  });

  it('closes only the offending tunnel with 768 on malformed input; others keep receiving frames', async () => {
    const good = await openTunnel();
    const bad = await openTunnel();
    await good.waitForOpcode('img');
    await bad.waitForOpcode('ready');
    bad.sendRaw('4.key,3.65;9999999999999.oops;');
    const closed = await bad.closed;
    expect(closed.code).toBe(4000 + GuacStatus.CLIENT_BAD_REQUEST);
    expect(closed.reason).toMatch(/^768 Malformed Guacamole instruction from the browser/);

    const from = good.instructions.length;
    await run('xsetroot', ['-solid', '#204060'], { env: desktop.env });
    await good.waitForOpcode('img', { from });
    expect(good.isOpen).toBe(true);
    expect(good.framingErrors).toEqual([]);
  });

  it('ignores the screen size in the query and the size instructions a browser sends', async () => {
    const before = await screenSize();
    const client = await openTunnel('width=wide&height=600&dpi=7');
    await client.waitForOpcode('img');
    client.send('size', 800, 600);
    // A desktop server that got it would resize (Xvnc takes SetDesktopSize at once) and send
    // the new size; the tunnel stays open and the desktop keeps its size.
    const from = client.instructions.length;
    await run('xsetroot', ['-solid', '#306090'], { env: desktop.env });
    await client.waitForOpcode('img', { from });
    expect(
      client.instructions.slice(from).some((i) => i.opcode === 'size' && i.args[0] === '0'),
    ).toBe(false);
    expect(await screenSize()).toEqual(before);
    expect(client.isOpen).toBe(true);
  });

  it('closes the guacd connection when the browser closes its WebSocket', async () => {
    const client = await openTunnel();
    const ready = await client.waitForOpcode('ready');
    const id = connectionIdOf(ready.args[0]);
    expect(id).toBeDefined();
    await eventually(
      'gateway to list the connection',
      () => gateway.connectionIds().includes(id ?? ''),
      5000,
    );
    await client.close();
    await eventually(
      'gateway to drop the connection',
      () => !gateway.connectionIds().includes(id ?? ''),
      5000,
    );
    await eventually(
      'bridge to forget the tunnel',
      () => !bridge.tunnels.connectionIds().includes(id ?? ''),
      5000,
    );
  });
});
