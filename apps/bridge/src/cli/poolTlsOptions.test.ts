// The pool's TLS options, with real certificates from the openssl CLI: serve's gateways:// and
// guacds:// members carry the bridge's TLS settings (OC_POOL_CA, OC_POOL_CLIENT_CERT/KEY) and
// gateway:// ones none; every mistake is a usage error naming the variable (never a file's
// content); `gateway --tls-cert/--tls-key/--tls-client-ca` (or OC_GATEWAY_TLS_*) goes together,
// and the started gateway serves mutual TLS: a client with the bridges' certificate is answered,
// a plaintext client gets no Guacamole byte.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { encodeInstruction } from '@overlay-companion/guac';
import { POOL_AUTH_OPCODE } from '@overlay-companion/gateway';
import { makeThrowawayPki, type ThrowawayPki } from '@overlay-companion/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { UsageError } from '../errors.js';
import { parseCommandLine } from './args.js';
import { runGateway } from './gatewayCommand.js';

const SECRET = 'p'.repeat(32);

describe('TLS options of the gateway pool', () => {
  let dir: string;
  let pki: ThrowawayPki;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-pool-tls-cli-'));
    pki = await makeThrowawayPki(dir);
  }, 30_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const serve = (env: NodeJS.ProcessEnv) =>
    parseCommandLine(['serve', '--gateways', 'gateways://gw:1,guacds://gd:2,gateway://plain:3'], {
      OC_GATEWAY_SECRET: SECRET,
      ...env,
    });

  it('gives gateways:// and guacds:// members the TLS settings, gateway:// none', () => {
    const parsed = serve({
      OC_POOL_CA: pki.caFile,
      OC_POOL_CLIENT_CERT: pki.client.certFile,
      OC_POOL_CLIENT_KEY: pki.client.keyFile,
    });
    if (parsed.command !== 'serve') throw new Error('not serve');
    const members = parsed.options.gatewayPool?.members ?? [];
    expect(members.map((m) => [m.kind, m.host, m.tls !== undefined])).toEqual([
      ['gateway', 'gw', true],
      ['guacd', 'gd', true],
      ['gateway', 'plain', false],
    ]);
    // Without OC_POOL_CA the system's CAs are used: still TLS, never plaintext.
    const system = serve({});
    if (system.command !== 'serve') throw new Error('not serve');
    expect(system.options.gatewayPool?.members[0]?.tls).toBeDefined();
  });

  it('refuses half a client certificate, an unreadable file and a file that is not PEM', async () => {
    const notPem = join(dir, 'not.pem');
    await writeFile(notPem, 'secret-looking-content-0123456789');
    const cases: [NodeJS.ProcessEnv, RegExp][] = [
      [{ OC_POOL_CLIENT_CERT: pki.client.certFile }, /OC_POOL_CLIENT_CERT and OC_POOL_CLIENT_KEY/],
      [{ OC_POOL_CA: join(dir, 'missing.pem') }, /OC_POOL_CA=.*missing\.pem cannot be read/],
      [{ OC_POOL_CA: notPem }, /not usable PEM/],
    ];
    for (const [env, message] of cases) {
      let error: unknown;
      try {
        serve(env);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('secret-looking-content');
    }
  });

  it('takes the gateway TLS files together, from flags or the environment', () => {
    expect(() => parseCommandLine(['gateway', '--tls-cert', 'a.pem'], {})).toThrow(
      /--tls-cert and --tls-key/,
    );
    expect(() => parseCommandLine(['gateway', '--tls-client-ca', 'ca.pem'], {})).toThrow(
      /--tls-client-ca needs TLS/,
    );
    expect(
      parseCommandLine(['gateway'], {
        OC_GATEWAY_TLS_CERT: 'c.pem',
        OC_GATEWAY_TLS_KEY: 'k.pem',
        OC_GATEWAY_TLS_CLIENT_CA: 'ca.pem',
      }),
    ).toMatchObject({
      options: { tls: { certFile: 'c.pem', keyFile: 'k.pem', clientCaFile: 'ca.pem' } },
    });
  });

  it('starts a gateway serving mutual TLS from its files', async () => {
    const parsed = parseCommandLine(
      [
        'gateway',
        '--listen',
        '127.0.0.1:0',
        '--tls-cert',
        pki.server.certFile,
        '--tls-key',
        pki.server.keyFile,
        '--tls-client-ca',
        pki.caFile,
      ],
      { OC_GATEWAY_SECRET: SECRET },
    );
    if (parsed.command !== 'gateway') throw new Error('not gateway');
    const gateway = await runGateway(parsed.options, silentLogger());
    try {
      const hello =
        encodeInstruction(POOL_AUTH_OPCODE, SECRET) + encodeInstruction('select', 'vnc');
      const answered = await new Promise<string>((resolve, reject) => {
        const socket = connectTls({
          host: gateway.host,
          port: gateway.port,
          ca: pki.ca,
          cert: pki.client.cert,
          key: pki.client.key,
        });
        socket.once('secureConnect', () => socket.write(hello));
        socket.once('data', (chunk: Buffer) => {
          socket.destroy();
          resolve(chunk.toString());
        });
        socket.once('error', reject);
      });
      expect(answered).toMatch(/^4\.args,/);
      const plain = await new Promise<Buffer>((resolve) => {
        const socket = connectTcp({ host: gateway.host, port: gateway.port });
        const got: Buffer[] = [];
        socket.once('connect', () => socket.write(hello));
        socket.on('data', (chunk: Buffer) => got.push(chunk));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(Buffer.concat(got)));
      });
      expect(plain.toString('latin1')).not.toMatch(/args|error/);
    } finally {
      await gateway.stop();
    }
  });
});
