// A gateway with a pool secret serves only the bridges of its pool: a local process that connects
// without the secret — a plain guacd client starting with `select`, a wrong or short secret, an
// auth instruction with extra arguments, or silence — gets one `error` (769, the same words every
// time), `disconnect` and a closed socket, never `args`, `ready` or anything about running connections. With
// the secret, the handshake goes on as with guacd.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { pino } from 'pino';
import {
  GuacParser,
  GuacStatus,
  encodeInstruction,
  type GuacInstruction,
} from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TcpGateway } from './gateway.js';
import { POOL_AUTH_OPCODE } from './poolAuth.js';

const SECRET = randomBytes(32).toString('base64url');

/** Sends `sent`, then reads until the gateway closes (or `until` matches); everything it said. */
function talk(
  gateway: TcpGateway,
  sent: string[],
  until?: (i: GuacInstruction) => boolean,
): Promise<GuacInstruction[]> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: gateway.host, port: gateway.port });
    const parser = new GuacParser();
    const got: GuacInstruction[] = [];
    socket.on('data', (chunk: Buffer) => {
      for (const instruction of parser.push(chunk.toString('utf8'))) {
        got.push(instruction);
        if (until?.(instruction) === true) socket.destroy();
      }
    });
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
    socket.on('connect', () => {
      for (const text of sent) socket.write(text);
    });
  });
}

describe('a gateway with a pool secret', () => {
  let gateway: TcpGateway;

  beforeAll(async () => {
    gateway = await startGateway({
      port: 0,
      poolSecret: SECRET,
      logger: pino({ level: 'silent' }),
      handshakeTimeoutMs: 1_000,
    });
  });
  afterAll(() => gateway?.close());

  it('goes on with the handshake after the right secret', async () => {
    const got = await talk(
      gateway,
      [encodeInstruction(POOL_AUTH_OPCODE, SECRET), encodeInstruction('select', 'vnc')],
      (i) => i.opcode === 'args',
    );
    expect(got[0]?.opcode).toBe('args');
  });

  it('refuses every connection without it the same way, telling nothing', async () => {
    const attempts = [
      [encodeInstruction('select', 'vnc')],
      [encodeInstruction('select', '$00000000-0000-4000-8000-000000000000')],
      [encodeInstruction(POOL_AUTH_OPCODE, `${SECRET.slice(0, -1)}x`)],
      [encodeInstruction(POOL_AUTH_OPCODE, SECRET.slice(0, 8))],
      [encodeInstruction(POOL_AUTH_OPCODE, '')],
      [encodeInstruction(POOL_AUTH_OPCODE, SECRET, SECRET)],
      [encodeInstruction('select', SECRET)],
      [], // silence until the handshake timeout
    ];
    const answers: GuacInstruction[][] = [];
    for (const sent of attempts) answers.push(await talk(gateway, sent));
    for (const got of answers) {
      expect(got.map((i) => i.opcode)).toEqual(['error', 'disconnect']);
      expect(got[0]?.args).toEqual(answers[0]?.[0]?.args);
      expect(got[0]?.args[1]).toBe(String(GuacStatus.CLIENT_UNAUTHORIZED));
    }
    expect(gateway.connectionIds()).toEqual([]);
  });

  it('refuses a pool secret shorter than 22 characters', async () => {
    await expect(startGateway({ port: 0, poolSecret: 'short' })).rejects.toThrow(/at least 22/);
  });
});
