// Connecting: security None and VNC authentication against a real Xvnc on its Unix socket
// (TCP: localDesktop.test.ts), and each way a connect can fail (wrong password, closed port, a
// missing socket, a silent server) rejecting with the right RfbError.
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../desktop/freePort.js';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { RfbClient, RfbError } from './client.js';

async function connectError(options: Parameters<typeof RfbClient.connect>[0]): Promise<RfbError> {
  const error: unknown = await RfbClient.connect(options).then(
    (client) => {
      client.close();
      return new Error('connect() resolved but should have failed');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RfbError);
  return error as RfbError;
}

describe('connect with security None', () => {
  let desktop: LocalDesktop;
  beforeAll(async () => {
    desktop = await startLocalDesktop({ windowManager: false });
  });
  afterAll(() => desktop.stop());

  test('reaches ServerInit and reports the desktop', async () => {
    const client = await RfbClient.connect({ path: desktop.rfbPath });
    expect(client.width).toBe(desktop.width);
    expect(client.height).toBe(desktop.height);
    expect(client.framebuffer.length).toBe(desktop.width * desktop.height * 4);
    expect(client.name.length).toBeGreaterThan(0);
    const closed = once(client, 'close');
    client.close();
    await closed;
  });
});

describe('connect with VNC authentication', () => {
  let desktop: LocalDesktop;
  beforeAll(async () => {
    desktop = await startLocalDesktop({ windowManager: false, password: 'pa55word' });
  });
  afterAll(() => desktop.stop());

  test('the right password connects and the desktop answers a full update', async () => {
    const client = await RfbClient.connect({
      path: desktop.rfbPath,
      password: 'pa55word',
    });
    client.pointer(0, 0, 0);
    const frame = once(client, 'frameEnd');
    client.requestUpdate(false);
    await frame;
    client.close();
  });

  test("a wrong password rejects with 'auth-failed' and says to check the password", async () => {
    const error = await connectError({ path: desktop.rfbPath, password: 'wrong' });
    expect(error.code).toBe('auth-failed');
    expect(error.message).toMatch(/Check the VNC password/);
  });

  test("no password for a server that needs one rejects with 'auth-failed'", async () => {
    const error = await connectError({ path: desktop.rfbPath });
    expect(error.code).toBe('auth-failed');
    expect(error.message).toMatch(/requires a password/);
  });
});

describe('connect failures without a VNC server', () => {
  test("a closed port rejects with 'unreachable' naming host and port", async () => {
    const port = await freePort('127.0.0.1');
    const error = await connectError({ host: '127.0.0.1', port });
    expect(error.code).toBe('unreachable');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toMatch(/Check that the VNC server is running/);
  });

  test("a Unix socket path with no server rejects with 'unreachable' naming the path", async () => {
    const path = join(tmpdir(), `oc-no-such-${String(process.pid)}.sock`);
    const error = await connectError({ path });
    expect(error.code).toBe('unreachable');
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/ENOENT.*the socket path is right/);
  });

  test("a server that accepts but never speaks rejects with 'timeout' (FAKE silent server)", async () => {
    const sockets: Socket[] = [];
    const fakeSilentServer = createServer((s) => sockets.push(s)).listen(0, '127.0.0.1');
    await once(fakeSilentServer, 'listening');
    const { port } = fakeSilentServer.address() as { port: number };
    try {
      const started = Date.now();
      const error = await connectError({ host: '127.0.0.1', port, connectTimeoutMs: 300 });
      expect(error.code).toBe('timeout');
      expect(error.message).toMatch(/did not finish the RFB handshake within 300 ms/);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      sockets.forEach((s) => s.destroy());
      fakeSilentServer.close();
    }
  });
});
