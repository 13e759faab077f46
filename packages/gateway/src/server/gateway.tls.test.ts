// A gateway serving TLS (listen.ts) with real certificates made by the openssl CLI: a client that
// trusts the gateway's CA and shows a certificate that CA signed gets the Guacamole handshake over
// TLS; under mutual TLS a client without a certificate, or with one another CA signed, is refused
// during TLS and never reaches the Guacamole side (no `args`, no `error`, nothing about running
// connections); a plaintext client — a plain guacd client starting with `select` — gets no
// Guacamole byte either. A reload of its credentials without the client CA, or with a key that
// is not the certificate's, is refused and leaves mutual TLS as it was. The refusals are logged
// with their TLS code, never a secret.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import { pino } from 'pino';
import { GuacParser, encodeInstruction, type GuacInstruction } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeThrowawayPki, type ThrowawayPki } from '../testing/throwawayPki.js';
import { startGateway, type TcpGateway } from './gateway.js';
import { POOL_AUTH_OPCODE } from './poolAuth.js';

const SECRET = randomBytes(32).toString('base64url');

interface Talk {
  instructions: GuacInstruction[];
  bytes: Buffer;
  error?: NodeJS.ErrnoException;
}

/** Opens a TLS (or plain) link, sends the pool secret and `select vnc`, reads until closed. */
function talk(gateway: TcpGateway, tls: ConnectionOptions | undefined): Promise<Talk> {
  return new Promise((resolve) => {
    const target = { host: gateway.host, port: gateway.port };
    const socket =
      tls === undefined
        ? connectTcp(target)
        : connectTls({ ...target, servername: 'localhost', ...tls });
    const parser = new GuacParser();
    const result: Talk = { instructions: [], bytes: Buffer.alloc(0) };
    socket.on('data', (chunk: Buffer) => {
      result.bytes = Buffer.concat([result.bytes, chunk]);
      try {
        for (const i of parser.push(chunk.toString('latin1'))) {
          result.instructions.push(i);
          if (i.opcode === 'args') socket.destroy();
        }
      } catch {
        // Not Guacamole (a TLS alert): kept in `bytes`.
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (result.error = error));
    socket.on('close', () => resolve(result));
    socket.once(tls === undefined ? 'connect' : 'secureConnect', () => {
      socket.write(encodeInstruction(POOL_AUTH_OPCODE, SECRET));
      socket.write(encodeInstruction('select', 'vnc'));
    });
  });
}

describe('a gateway serving mutual TLS', () => {
  let dir: string;
  let pki: ThrowawayPki;
  let gateway: TcpGateway;
  const logged: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-gateway-tls-'));
    pki = await makeThrowawayPki(dir);
    const logger = pino({ level: 'info' }, { write: (line: string) => logged.push(line) });
    gateway = await startGateway({
      port: 0,
      poolSecret: SECRET,
      tls: { cert: pki.server.cert, key: pki.server.key, clientCa: pki.ca },
      logger,
      handshakeTimeoutMs: 2_000,
    });
  }, 30_000);
  afterAll(async () => {
    await gateway?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the Guacamole handshake for a client with a certificate its CA signed', async () => {
    const got = await talk(gateway, { ca: pki.ca, cert: pki.client.cert, key: pki.client.key });
    expect(got.error).toBeUndefined();
    expect(got.instructions[0]?.opcode).toBe('args');
  });

  it('refuses a client without a certificate, or with one another CA signed, during TLS', async () => {
    for (const tls of [
      { ca: pki.ca },
      { ca: pki.ca, cert: pki.strangerClient.cert, key: pki.strangerClient.key },
    ]) {
      const got = await talk(gateway, tls);
      // Not one byte past TLS: the socket ends, with TLS's alert when it arrives in time.
      expect(got.bytes.length).toBe(0);
      if (got.error !== undefined) expect(got.error.code).toMatch(/^ERR_SSL_.*ALERT|ECONNRESET/);
    }
    const refusals = logged.filter((line) => line.includes('a client failed TLS'));
    expect(refusals.length).toBeGreaterThanOrEqual(2);
    for (const line of logged) expect(line).not.toContain(SECRET);
  });

  it('gives a plaintext client no Guacamole byte', async () => {
    const got = await talk(gateway, undefined);
    expect(got.instructions).toEqual([]);
    // At most TLS's own alert record (content type 21), never text.
    if (got.bytes.length > 0) expect(got.bytes[0]).toBe(0x15);
    expect(got.bytes.toString('latin1')).not.toMatch(/args|error|ready/);
  });

  it('refuses a reload that would drop the client CA (Node would then trust the public CAs)', async () => {
    expect(() => gateway.reloadTls({ cert: pki.server.cert, key: pki.server.key })).toThrow(
      /serves mutual TLS: the reload needs the client CA/,
    );
    expect(() =>
      gateway.reloadTls({ cert: pki.server.cert, key: pki.client.key, clientCa: pki.ca }),
    ).toThrow();
    // Still mutual TLS with the CA it had: a stranger's certificate is refused, ours answered.
    const stranger = await talk(gateway, {
      ca: pki.ca,
      cert: pki.strangerClient.cert,
      key: pki.strangerClient.key,
    });
    expect(stranger.bytes.length).toBe(0);
    const ours = await talk(gateway, { ca: pki.ca, cert: pki.client.cert, key: pki.client.key });
    expect(ours.instructions[0]?.opcode).toBe('args');
  });

  it('is refused by a client that does not trust its CA', async () => {
    const got = await talk(gateway, { ca: await readOther(pki) });
    expect(got.instructions).toEqual([]);
    expect(got.error?.code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/);
  });
});

async function readOther(pki: ThrowawayPki): Promise<Buffer> {
  const { readFile } = await import('node:fs/promises');
  return readFile(pki.otherCaFile);
}
