// The gateway on a Unix socket, as `serve` runs it: the whole way from handshake to frames
// that equal the X screen, over a 0600 socket in a 0700 dir, to a real Xvnc that itself
// listens only on a Unix socket. Also: a stale socket from a crashed run is replaced, a live
// one or a non-socket is not, a directory open to others is refused, close() removes the
// socket, and no client can aim the gateway at a Unix socket it was not given.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, lstat, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { GuacStatus } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { waitForScreenMatch } from '../testing/desktopCapture.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { tcpListenersOf } from '../testing/listeners.js';
import { startGateway, type UnixGateway } from './gateway.js';

const silent = pino({ level: 'silent' });
const PASSWORD = 'unix-pw1';
const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

describe('gateway on a Unix socket', () => {
  let desktop: LocalDesktop;
  let dir: string;
  let gateway: UnixGateway;
  const clients: GuacTestClient[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-gw-unix-'));
    desktop = await startLocalDesktop({
      width: 640,
      height: 400,
      password: PASSWORD,
      windowManager: false,
    });
    gateway = await startGateway({
      path: join(dir, 'gateway.sock'),
      vncUnixSockets: [desktop.rfbPath],
      logger: silent,
    });
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await gateway?.close();
    await desktop?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports where it listens: a 0600 socket, no TCP port', async () => {
    expect(gateway.kind).toBe('unix');
    expect(gateway.path).toBe(join(dir, 'gateway.sock'));
    expect(gateway.host).toBeUndefined();
    expect((await stat(gateway.path)).isSocket()).toBe(true);
    expect((await stat(gateway.path)).mode & 0o777).toBe(0o600);
    // This test process holds the gateway: it must not listen on TCP for it.
    expect(await tcpListenersOf(process.pid)).toEqual([]);
  });

  it('runs the handshake and sends frames equal to the X screen', async () => {
    const client = await GuacTestClient.connect(gateway, {
      select: 'vnc',
      params: { hostname: desktop.rfbPath, password: PASSWORD },
    });
    clients.push(client);
    expect(client.errors).toEqual([]);
    expect(client.connectionId).toMatch(/^\$[0-9a-f-]{36}$/);
    await client.waitForFrames(1);
    expect(client.received.find((i) => i.opcode === 'size')?.args).toEqual(['0', '640', '400']);
    client.send('mouse', 321, 123, 0);
    expect(await waitForScreenMatch(desktop.env, () => client.screen)).toEqual({ mismatches: 0 });
    client.close();
  });

  it('refuses a Unix socket it was not given, even a real VNC server', async () => {
    const other = await startLocalDesktop({ windowManager: false });
    try {
      for (const hostname of [
        other.rfbPath,
        `${desktop.rfbPath}/../rfb.sock`,
        '/run/docker.sock',
      ]) {
        const client = await GuacTestClient.connect(gateway, {
          select: 'vnc',
          params: { hostname },
        });
        clients.push(client);
        const error = await client.waitForError();
        expect(error.status).toBe(GuacStatus.CLIENT_BAD_REQUEST);
        expect(error.message).toMatch(/names a Unix socket this gateway was not started with/);
        await client.waitForClose();
      }
      expect(gateway.connectionIds()).toEqual([]);
    } finally {
      await other.stop();
    }
  });

  it('in a TCP gateway without vncUnixSockets, refuses every Unix socket', async () => {
    const tcp = await startGateway({ port: 0, logger: silent });
    try {
      const client = await GuacTestClient.connect(tcp, {
        select: 'vnc',
        params: { hostname: desktop.rfbPath, password: PASSWORD },
      });
      clients.push(client);
      expect((await client.waitForError()).status).toBe(GuacStatus.CLIENT_BAD_REQUEST);
    } finally {
      await tcp.close();
    }
  });

  it('removes its socket on close', async () => {
    const path = join(dir, 'closing.sock');
    const own = await startGateway({ path, logger: silent });
    expect(await exists(path)).toBe(true);
    await own.close();
    expect(await exists(path)).toBe(false);
  });

  it('replaces a stale socket left by a crashed process', async () => {
    const path = join(dir, 'stale.sock');
    // A real crash: a process that listens on the path, then dies by SIGKILL.
    const crashing = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`,
    ]);
    await once(crashing.stdout, 'data');
    crashing.kill('SIGKILL');
    await once(crashing, 'exit');
    expect((await lstat(path)).isSocket()).toBe(true);

    const own = await startGateway({ path, logger: silent });
    try {
      const client = await GuacTestClient.connect(own, { select: 'rdp' });
      clients.push(client);
      expect((await client.waitForError()).status).toBe(GuacStatus.UNSUPPORTED);
    } finally {
      await own.close();
    }
  });

  it('refuses a socket another process still answers on, and a path that is no socket', async () => {
    await expect(startGateway({ path: gateway.path, logger: silent })).rejects.toThrow(
      /Another process is listening on .*gateway\.sock/,
    );
    const file = join(dir, 'not-a-socket');
    await writeFile(file, 'keep me');
    await expect(startGateway({ path: file, logger: silent })).rejects.toThrow(
      /exists and is not a socket/,
    );
    expect(await exists(file)).toBe(true);
  });

  it('refuses a directory that others can enter', async () => {
    const open = await mkdtemp(join(tmpdir(), 'oc-gw-open-'));
    try {
      await chmod(open, 0o755);
      await expect(startGateway({ path: join(open, 'g.sock'), logger: silent })).rejects.toThrow(
        /closed to others; .* mode 0755\. Run `chmod 700/,
      );
      expect(await exists(join(open, 'g.sock'))).toBe(false);
    } finally {
      await rm(open, { recursive: true, force: true });
    }
  });

  it('takes a path or a host and port, not both', async () => {
    await expect(
      startGateway({ path: join(dir, 'x.sock'), port: 0, logger: silent }),
    ).rejects.toThrow(/either a Unix socket path or a TCP host and port/);
  });
});
