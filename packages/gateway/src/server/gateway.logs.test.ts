// What the gateway writes to its log during a whole session — a connection with a VNC
// password, frames, input and clipboard, a browser that joins with the join secret, a join with
// a wrong secret, a wrong VNC password, everything ending — at the most verbose level: never a
// connection id (whoever reads it could join the desktop), a VNC password or the join secret;
// connections appear by their label only.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { connectionLabel } from '../session/connectionLabel.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { startGateway } from './gateway.js';

const PASSWORD = 'pw-Xy7q!';
const WRONG_PASSWORD = 'pw-Nope9';
const SECRET = randomBytes(32).toString('base64url');

describe('gateway logs', () => {
  let desktop: LocalDesktop;
  let dir: string;
  const lines: string[] = [];
  const ids: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-gw-logs-'));
    desktop = await startLocalDesktop({
      width: 640,
      height: 400,
      password: PASSWORD,
      windowManager: false,
    });
    const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    const gateway = await startGateway({
      path: join(dir, 'gateway.sock'),
      joinSecret: SECRET,
      vncUnixSockets: [desktop.rfbPath],
      logger,
    });
    const clients: GuacTestClient[] = [];
    const open = async (select: string, params: Record<string, string>) => {
      const client = await GuacTestClient.connect(gateway, { select, params });
      clients.push(client);
      return client;
    };
    try {
      const owner = await open('vnc', { hostname: desktop.rfbPath, password: PASSWORD });
      ids.push(owner.connectionId);
      await owner.waitForFrames(1);
      owner.send('mouse', 10, 10, 0);
      owner.sendClipboard('clip');
      const joiner = await open(owner.connectionId, { 'join-secret': SECRET });
      await joiner.waitForFrames(1);
      await (await open(owner.connectionId, { 'join-secret': 'wrong' })).waitForClose();
      const refused = await open('vnc', { hostname: desktop.rfbPath, password: WRONG_PASSWORD });
      ids.push(refused.connectionId);
      await refused.waitForError();
      owner.close();
      joiner.close();
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      for (const client of clients) client.close();
      await gateway.close();
    }
  });

  afterAll(async () => {
    await desktop?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('were written, naming each connection by its label', () => {
    const log = lines.join('');
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(log).toContain(`"connection":"${connectionLabel(id)}"`);
    for (const msg of ['browser joined', 'VNC connected', 'handshake failed', 'connection ended'])
      expect(log).toContain(`"msg":"${msg}"`);
    expect(log).toContain('"level":10'); // trace: the most verbose level was on
  });

  it('hold no connection id, VNC password or join secret', () => {
    const log = lines.join('');
    for (const id of ids) {
      expect(id).toMatch(/^\$[0-9a-f-]{36}$/);
      expect(log).not.toContain(id.slice(1));
      // Not even a recognisable piece of it.
      for (const part of id.slice(1).split('-'))
        if (part.length >= 8) expect(log).not.toContain(part);
    }
    expect(log).not.toContain(PASSWORD);
    expect(log).not.toContain(WRONG_PASSWORD);
    expect(log).not.toContain(SECRET);
  });
});
