// Renewed TLS certificates are taken up without a restart, with real certificates from the
// openssl CLI: the gateway command (--tls-cert/--tls-key/--tls-client-ca) serves the renewed
// certificate to links opened after the files changed, and a bridge's pool links (OC_POOL_*,
// parsed as `serve` parses them, dialled by tunnel/poolTls.ts) show the renewed client
// certificate; links opened before keep working on theirs. Files that are not usable — not PEM,
// a certificate without its key — leave the previous certificate in force, and the log says why
// without any of the files' content.
import { X509Certificate } from 'node:crypto';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, createServer, type Server, type TLSSocket } from 'node:tls';
import { encodeInstruction } from '@overlay-companion/guac';
import { POOL_AUTH_OPCODE } from '@overlay-companion/gateway';
import {
  makeThrowawayPki,
  type ThrowawayPki,
  eventually,
} from '@overlay-companion/gateway/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { connectPoolTls } from '../tunnel/poolTls.js';
import { parseCommandLine } from './args.js';
import { runGateway } from './gatewayCommand.js';
import { watchPoolTls } from './gatewayPoolOptions.js';

const SECRET = 'r'.repeat(32);
/** Quick polling for the test; the default is TLS_FILE_POLL_MS. */
const POLL_MS = 40;
const NOT_PEM = 'secret-looking-content-0123456789';

const serialOf = (pem: Buffer): string => new X509Certificate(pem).serialNumber;

describe('renewed TLS certificates', () => {
  let dir: string;
  let pki: ThrowawayPki;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-tls-renewal-'));
    pki = await makeThrowawayPki(dir);
  }, 30_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** A logger whose lines the test reads. */
  const capture = () => {
    const lines: string[] = [];
    return { lines, logger: pino({ level: 'info' }, { write: (l: string) => lines.push(l) }) };
  };

  it('the gateway serves a renewed certificate to new links; open links keep working', async () => {
    const certFile = join(dir, 'gateway.pem');
    const keyFile = join(dir, 'gateway.key');
    await copyFile(pki.server.certFile, certFile);
    await copyFile(pki.server.keyFile, keyFile);
    const parsed = parseCommandLine(
      [
        'gateway',
        '--listen',
        '127.0.0.1:0',
        '--tls-cert',
        certFile,
        '--tls-key',
        keyFile,
        '--tls-client-ca',
        pki.caFile,
      ],
      { OC_GATEWAY_SECRET: SECRET },
    );
    if (parsed.command !== 'gateway') throw new Error('not gateway');
    const { lines, logger } = capture();
    const gateway = await runGateway(parsed.options, logger, POLL_MS);
    const open = (): Promise<TLSSocket> =>
      new Promise((resolve, reject) => {
        const socket = connectTls({
          host: gateway.host,
          port: gateway.port,
          ca: pki.ca,
          cert: pki.client.cert,
          key: pki.client.key,
          servername: 'localhost',
        });
        socket.once('secureConnect', () => resolve(socket));
        socket.once('error', reject);
      });
    const servedSerial = async (): Promise<string> => {
      const socket = await open();
      const serial = socket.getPeerX509Certificate()?.serialNumber ?? '';
      socket.destroy();
      return serial;
    };
    /** The Guacamole handshake's first answer on a link (the link works). */
    const answers = (socket: TLSSocket): Promise<string> =>
      new Promise((resolve) => {
        socket.once('data', (chunk: Buffer) => resolve(chunk.toString()));
        socket.write(
          encodeInstruction(POOL_AUTH_OPCODE, SECRET) + encodeInstruction('select', 'vnc'),
        );
      });
    try {
      expect(await servedSerial()).toBe(serialOf(pki.server.cert));
      const before = await open();

      const renewed = await pki.reissue('gateway-renewed', 'server');
      await writeFile(certFile, renewed.cert);
      await writeFile(keyFile, renewed.key);
      await eventually(
        'new links to get the renewed certificate',
        async () => (await servedSerial()) === serialOf(renewed.cert),
        10_000,
      );
      expect(lines.join('')).toContain('links opened from now on use the new certificate');
      // The link opened before the renewal still does its handshake, on the old certificate.
      expect(before.getPeerX509Certificate()?.serialNumber).toBe(serialOf(pki.server.cert));
      expect(await answers(before)).toMatch(/^4\.args,/);
      before.destroy();

      // A file that is not PEM, then a certificate without its key: the renewed one stays.
      for (const [file, content] of [
        [certFile, NOT_PEM],
        [certFile, (await pki.reissue('gateway-unkeyed', 'server')).cert],
      ] as const) {
        const warned = lines.length;
        await writeFile(file, content);
        await eventually(
          'the unusable files to be refused',
          () => lines.slice(warned).some((l) => l.includes('still serving the previous')),
          10_000,
        );
        expect(await servedSerial()).toBe(serialOf(renewed.cert));
      }
      expect(lines.join('')).not.toContain(NOT_PEM);
    } finally {
      await gateway.stop();
    }
  });

  it("a bridge's pool links show a renewed client certificate; open links keep working", async () => {
    const certFile = join(dir, 'bridge.pem');
    const keyFile = join(dir, 'bridge.key');
    await copyFile(pki.client.certFile, certFile);
    await copyFile(pki.client.keyFile, keyFile);
    const env = {
      OC_POOL_CA: pki.caFile,
      OC_POOL_CLIENT_CERT: certFile,
      OC_POOL_CLIENT_KEY: keyFile,
    };
    // A member serving mutual TLS that echoes, and says which client certificate each link showed.
    const shown: string[] = [];
    const member: Server = createServer(
      { cert: pki.server.cert, key: pki.server.key, ca: pki.ca, requestCert: true },
      (socket) => {
        shown.push(socket.getPeerX509Certificate()?.serialNumber ?? '');
        socket.on('data', (chunk: Buffer) => socket.write(chunk));
        socket.on('error', () => undefined);
      },
    );
    await new Promise<void>((resolve) => member.listen(0, '127.0.0.1', resolve));
    const port = (member.address() as { port: number }).port;
    const parsed = parseCommandLine(['serve', '--gateways', `guacds://127.0.0.1:${port}`], env);
    if (parsed.command !== 'serve') throw new Error('not serve');
    const pool = parsed.options.gatewayPool;
    const context = pool?.members[0]?.tls;
    if (context === undefined) throw new Error('no TLS context');
    const { lines, logger } = capture();
    const stop = watchPoolTls(pool, env, logger, POLL_MS);
    const link = async (): Promise<TLSSocket> =>
      connectPoolTls({ host: '127.0.0.1', port }, context).opened;
    const echoes = (socket: TLSSocket): Promise<string> =>
      new Promise((resolve) => {
        socket.once('data', (chunk: Buffer) => resolve(chunk.toString()));
        socket.write('still here');
      });
    /** The client certificate a new link shows the member. */
    const newLinkShows = async (): Promise<string> => {
      const socket = await link();
      await echoes(socket);
      socket.destroy();
      return shown.at(-1) ?? '';
    };
    try {
      expect(await newLinkShows()).toBe(serialOf(pki.client.cert));
      const before = await link();

      const renewed = await pki.reissue('bridge-renewed', 'client');
      await writeFile(certFile, renewed.cert);
      await writeFile(keyFile, renewed.key);
      await eventually(
        'new links to show the renewed certificate',
        async () => (await newLinkShows()) === serialOf(renewed.cert),
        10_000,
      );
      expect(lines.join('')).toContain("the pool's TLS files changed: links opened from now on");
      expect(await echoes(before)).toBe('still here');
      before.destroy();

      for (const content of [NOT_PEM, (await pki.reissue('bridge-unkeyed', 'client')).cert]) {
        const warned = lines.length;
        await writeFile(certFile, content);
        await eventually(
          'the unusable files to be refused',
          () => lines.slice(warned).some((l) => l.includes('links keep using the previous ones')),
          10_000,
        );
        expect(await newLinkShows()).toBe(serialOf(renewed.cert));
      }
      expect(lines.join('')).not.toContain(NOT_PEM);
    } finally {
      stop?.();
      await new Promise<void>((resolve) => member.close(() => resolve()));
    }
  });
});
