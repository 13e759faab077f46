// Joining a running connection with a join secret configured: the right secret joins and sees
// the desktop; a wrong one, a missing one and an unknown id all get the very same answer
// (status, message, and `args` before it), so nothing tells a guesser which part was wrong.
// Without a join secret, `select $<id>` works as with guacd (gateway.display.test.ts).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { GuacStatus } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { waitForScreenMatch } from '../testing/desktopCapture.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { startGateway, type UnixGateway } from './gateway.js';
import { VNC_ARG_NAMES } from './vncArgs.js';

const SECRET = randomBytes(32).toString('base64url');

describe('joining with a join secret', () => {
  let desktop: LocalDesktop;
  let dir: string;
  let gateway: UnixGateway;
  let owner: GuacTestClient;
  const clients: GuacTestClient[] = [];

  const join$ = async (select: string, params: Record<string, string>) => {
    const client = await GuacTestClient.connect(gateway, { select, params });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-gw-join-'));
    desktop = await startLocalDesktop({ width: 640, height: 400, windowManager: false });
    gateway = await startGateway({
      path: join(dir, 'gateway.sock'),
      joinSecret: SECRET,
      vncUnixSockets: [desktop.rfbPath],
      logger: pino({ level: 'silent' }),
    });
    owner = await join$('vnc', { hostname: desktop.rfbPath });
    await owner.waitForFrames(1);
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await gateway?.close();
    await desktop?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('does not ask for the secret to start a new connection', () => {
    expect(owner.errors).toEqual([]);
    expect(owner.argNames).toEqual(['VERSION_1_5_0', ...VNC_ARG_NAMES]);
  });

  it('joins with the right secret and sees the same desktop', async () => {
    const joiner = await join$(owner.connectionId, { 'join-secret': SECRET });
    expect(joiner.argNames).toEqual(['VERSION_1_5_0', ...VNC_ARG_NAMES, 'join-secret']);
    expect(joiner.errors).toEqual([]);
    expect(joiner.connectionId).toBe(owner.connectionId);
    await joiner.waitForFrames(1);
    joiner.send('mouse', 200, 100, 0);
    expect(await waitForScreenMatch(desktop.env, () => joiner.screen)).toEqual({ mismatches: 0 });
    joiner.close();
  });

  it('answers a wrong secret, a missing one and an unknown id alike, with 516', async () => {
    const attempts = [
      await join$(owner.connectionId, { 'join-secret': `${SECRET.slice(0, -1)}x` }),
      await join$(owner.connectionId, { 'join-secret': '' }),
      await join$(owner.connectionId, {}),
      await join$(owner.connectionId, { 'join-secret': SECRET.slice(0, 8) }),
      await join$('$00000000-0000-4000-8000-000000000000', { 'join-secret': SECRET }),
      await join$('$00000000-0000-4000-8000-000000000000', {}),
    ];
    const answers = [];
    for (const client of attempts) {
      const error = await client.waitForError();
      await client.waitForClose();
      answers.push({ args: client.argNames, error, ready: client.connectionId });
    }
    const first = answers[0];
    expect(first?.error.status).toBe(GuacStatus.RESOURCE_NOT_FOUND);
    expect(first?.error.message).toMatch(/^No such connection/);
    expect(first?.error.message).not.toContain(owner.connectionId);
    expect(first?.ready).toBe('');
    for (const answer of answers) expect(answer).toEqual(first);
    // The owner is still connected and alone.
    expect(owner.closed).toBe(false);
    expect(gateway.connectionIds()).toEqual([owner.connectionId]);
  });

  it('refuses a join secret too short to be one', async () => {
    await expect(
      startGateway({ path: join(dir, 'weak.sock'), joinSecret: 'hunter2' }),
    ).rejects.toThrow(/at least 22 characters/);
  });
});
