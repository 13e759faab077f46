// Every way a connection can go wrong ends that connection alone with a clear `error`
// instruction — unsupported protocol, unknown connection id, garbage or a stalled handshake,
// a malformed instruction later on, an unreachable VNC host, a wrong VNC password, a VNC
// server that dies mid-frame — while a healthy browser on a real Xvnc keeps working.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { buildConnectValues, GuacStatus } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../desktop/freePort.js';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import {
  startFakeVncServerThatClosesMidFrame,
  type FakeVncServer,
} from '../testing/fakeVncServer.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { startGateway, type Gateway } from './gateway.js';
import { VNC_ARG_NAMES } from './vncArgs.js';

const run = promisify(execFile);
const PASSWORD = 'sesame42';

describe('gateway failures stay with their connection', () => {
  let desktop: LocalDesktop;
  let gateway: Gateway;
  let fake: FakeVncServer;
  let healthy: GuacTestClient;
  const clients: GuacTestClient[] = [];
  let step = 0;

  const track = (client: GuacTestClient): GuacTestClient => {
    clients.push(client);
    return client;
  };

  /**
   * `select vnc`, then `connect` to the desktop at once: no size/audio/video/image, and no
   * waiting for `ready`, for tests of what happens right after `connect`.
   */
  const selectAndConnect = async (client: GuacTestClient): Promise<void> => {
    client.send('select', 'vnc');
    await client.waitFor(() => client.argNames.length > 0, 'args');
    client.send(
      'connect',
      ...buildConnectValues(client.argNames, {
        hostname: desktop.rfbPath,
        password: PASSWORD,
      }),
    );
  };

  /** The healthy browser still drives the real desktop and is still connected. */
  const expectHealthy = async (): Promise<void> => {
    step++;
    const [px, py] = [100 + step * 7, 80 + step * 5];
    healthy.send('mouse', px, py, 0);
    await expect
      .poll(async () => (await run('xdotool', ['getmouselocation'], { env: desktop.env })).stdout, {
        timeout: 5000,
      })
      .toMatch(new RegExp(`^x:${String(px)} y:${String(py)} `));
    expect(healthy.closed).toBe(false);
    expect(healthy.errors).toEqual([]);
    expect(gateway.connectionIds()).toContain(healthy.connectionId);
  };

  beforeAll(async () => {
    desktop = await startLocalDesktop({
      width: 640,
      height: 400,
      password: PASSWORD,
      windowManager: false,
    });
    fake = await startFakeVncServerThatClosesMidFrame();
    gateway = await startGateway({
      port: 0,
      vncUnixSockets: [desktop.rfbPath],
      logger: pino({ level: 'silent' }),
      handshakeTimeoutMs: 800,
    });
    healthy = track(
      await GuacTestClient.connect(gateway, {
        select: 'vnc',
        params: { hostname: desktop.rfbPath, password: PASSWORD },
      }),
    );
    await healthy.waitForFrames(1);
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await gateway?.close();
    await fake?.close();
    await desktop?.stop();
  });

  it('announces VERSION_1_5_0 first, then the VNC argument names in a fixed order', () => {
    expect(healthy.argNames).toEqual(['VERSION_1_5_0', ...VNC_ARG_NAMES]);
    expect(VNC_ARG_NAMES.slice(0, 3)).toEqual(['hostname', 'port', 'read-only']);
  });

  it('answers select rdp with error 256 naming vnc', async () => {
    const client = track(await GuacTestClient.connect(gateway, { select: 'rdp' }));
    const error = await client.waitForError();
    expect(error.status).toBe(GuacStatus.UNSUPPORTED);
    expect(error.message).toContain('"rdp" is not supported');
    expect(error.message).toContain('"vnc"');
    await client.waitForClose();
    await expectHealthy();
  });

  it('answers an unknown connection id with 516', async () => {
    const client = track(await GuacTestClient.connect(gateway, { select: '$no-such-connection' }));
    const error = await client.waitForError();
    expect(error.status).toBe(GuacStatus.RESOURCE_NOT_FOUND);
    expect(error.message).toContain('No such connection');
    await client.waitForClose();
    await expectHealthy();
  });

  it('answers garbage during the handshake with 768', async () => {
    const client = track(await GuacTestClient.open(gateway));
    client.sendRaw('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const error = await client.waitForError();
    expect(error.status).toBe(GuacStatus.CLIENT_BAD_REQUEST);
    expect(error.message).toMatch(/Malformed Guacamole instruction/);
    await client.waitForClose();
    await expectHealthy();
  });

  it('answers a handshake that stalls with 776', async () => {
    const client = track(await GuacTestClient.open(gateway));
    client.send('select', 'vnc');
    await client.waitFor(() => client.received.some((i) => i.opcode === 'args'), 'args');
    const error = await client.waitForError(5000);
    expect(error.status).toBe(GuacStatus.CLIENT_TIMEOUT);
    expect(error.message).toMatch(/timed out .* "connect"/);
    await client.waitForClose();
    await expectHealthy();
  });

  it('answers connect with the wrong number of values with 768', async () => {
    const client = track(await GuacTestClient.open(gateway));
    client.send('select', 'vnc');
    await client.waitFor(() => client.received.some((i) => i.opcode === 'args'), 'args');
    client.send('connect', 'VERSION_1_5_0', desktop.rfbPath, '');
    const error = await client.waitForError();
    expect(error.status).toBe(GuacStatus.CLIENT_BAD_REQUEST);
    expect(error.message).toMatch(/one value per name/);
    await client.waitForClose();
    await expectHealthy();
  });

  it('answers a malformed instruction after the handshake with 768 and closes only that browser', async () => {
    const client = track(
      await GuacTestClient.connect(gateway, {
        select: 'vnc',
        params: { hostname: desktop.rfbPath, password: PASSWORD },
      }),
    );
    await client.waitForFrames(1);
    client.sendRaw('5.mouse,2.10,2.10,1.0;3.key,x;');
    const error = await client.waitForError();
    expect(error.status).toBe(GuacStatus.CLIENT_BAD_REQUEST);
    expect(error.message).toMatch(/^Malformed Guacamole instruction from the client: /);
    await client.waitForClose();
    await expectHealthy();
  });

  it('answers bad arguments to a known instruction with 768', async () => {
    const client = track(await GuacTestClient.connect(gateway, { select: healthy.connectionId }));
    await client.waitForFrames(1);
    client.send('mouse', 'left', 'top', 0);
    const error = await client.waitForError();
    expect(error.status).toBe(GuacStatus.CLIENT_BAD_REQUEST);
    expect(error.message).toMatch(/"mouse" argument 1 must be an integer/);
    await client.waitForClose();
    await expectHealthy();
  });

  it('reports an unreachable VNC host with 519 and what to check', async () => {
    const port = await freePort();
    const client = track(
      await GuacTestClient.connect(gateway, {
        select: 'vnc',
        params: { hostname: '127.0.0.1', port: String(port) },
      }),
    );
    const error = await client.waitForError();
    expect(error.status).toBe(GuacStatus.UPSTREAM_NOT_FOUND);
    expect(error.message).toContain(`127.0.0.1:${String(port)}`);
    expect(error.message).toMatch(/host and port/);
    await client.waitForClose();
    await expectHealthy();
  });

  it('reports a wrong VNC password with 769', async () => {
    const client = track(
      await GuacTestClient.connect(gateway, {
        select: 'vnc',
        params: { hostname: desktop.rfbPath, password: 'wrong' },
      }),
    );
    const error = await client.waitForError();
    expect(error.status).toBe(GuacStatus.CLIENT_UNAUTHORIZED);
    expect(error.message).toMatch(/password/);
    await client.waitForClose();
    await expectHealthy();
  });

  it('reports a (fake) VNC server that closes mid-frame with 515', async () => {
    const client = track(
      await GuacTestClient.connect(gateway, {
        select: 'vnc',
        params: { hostname: fake.host, port: String(fake.port) },
      }),
    );
    const error = await client.waitForError();
    expect(fake.cutOff).toBeGreaterThan(0);
    expect(error.status).toBe(GuacStatus.UPSTREAM_ERROR);
    expect(error.message).toContain(`${fake.host}:${String(fake.port)}`);
    expect(error.message).toMatch(/reconnect/);
    await client.waitForClose();
    expect(gateway.connectionIds()).not.toContain(client.connectionId);
    await expectHealthy();
  });

  it('closes a browser that goes silent after the handshake with 776', async () => {
    const strict = await startGateway({
      port: 0,
      vncUnixSockets: [desktop.rfbPath],
      logger: pino({ level: 'silent' }),
      clientIdleTimeoutMs: 1000,
    });
    try {
      const client = track(await GuacTestClient.open(strict));
      await selectAndConnect(client);
      // Stop being a well-behaved browser: no nop, no sync.
      client.stopKeepAlive();
      client.autoSync = false;
      const error = await client.waitForError(6000);
      expect(error.status).toBe(GuacStatus.CLIENT_TIMEOUT);
      expect(error.message).toMatch(/sent nothing/);
      await client.waitForClose();
      client.socket.destroy();
    } finally {
      await strict.close();
    }
    await expectHealthy();
  });

  it('forgets a connection whose only browser leaves right after connect', async () => {
    const client = track(await GuacTestClient.open(gateway));
    await selectAndConnect(client);
    client.close();
    await expect
      .poll(() => gateway.connectionIds(), { timeout: 5000 })
      .toEqual([healthy.connectionId]);
    await expectHealthy();
  });
});
