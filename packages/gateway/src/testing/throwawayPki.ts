// Throwaway certificates for TLS tests, made with the `openssl` CLI in a directory the test owns:
// a CA, a server certificate it signed for 127.0.0.1 and localhost, a client certificate it
// signed (mutual TLS), a second CA nobody trusts with a server certificate of its own, and a
// server certificate from the first CA for another name; and, for renewal tests, new server or
// client certificates (new keys, new serials) from the same CA. EC P-256 keys: quick to make. Real
// certificates, real OpenSSL: nothing about TLS is faked.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PemPair {
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
}

export interface ThrowawayPki {
  /** The CA the tests trust (its certificate file). */
  caFile: string;
  ca: Buffer;
  /** Signed by the CA, for IP 127.0.0.1 and DNS localhost. */
  server: PemPair;
  /** Signed by the CA, for a client (extendedKeyUsage clientAuth). */
  client: PemPair;
  /** Another CA, trusted by nobody. */
  otherCaFile: string;
  /** Signed by the other CA, for 127.0.0.1 and localhost. */
  strangerServer: PemPair;
  /** Signed by the trusted CA, but for elsewhere.invalid only. */
  misnamedServer: PemPair;
  /** Signed by the other CA, for a client. */
  strangerClient: PemPair;
  /** A renewal: a new key and certificate from the trusted CA, like `server` or `client`. */
  reissue(name: string, like: 'server' | 'client'): Promise<PemPair>;
}

export async function makeThrowawayPki(dir: string): Promise<ThrowawayPki> {
  const ca = await makeCa(dir, 'ca');
  const other = await makeCa(dir, 'other-ca');
  const server = await issue(dir, 'server', ca, 'serverAuth', 'IP:127.0.0.1,DNS:localhost');
  const client = await issue(dir, 'client', ca, 'clientAuth', 'DNS:bridge');
  const strangerServer = await issue(dir, 'stranger', other, 'serverAuth', 'IP:127.0.0.1');
  const misnamedServer = await issue(dir, 'misnamed', ca, 'serverAuth', 'DNS:elsewhere.invalid');
  const strangerClient = await issue(dir, 'stranger-client', other, 'clientAuth', 'DNS:bridge');
  return {
    caFile: ca.certFile,
    ca: ca.cert,
    server,
    client,
    otherCaFile: other.certFile,
    strangerServer,
    misnamedServer,
    strangerClient,
    reissue: (name, like) =>
      like === 'server'
        ? issue(dir, name, ca, 'serverAuth', 'IP:127.0.0.1,DNS:localhost')
        : issue(dir, name, ca, 'clientAuth', 'DNS:bridge'),
  };
}

async function makeCa(dir: string, name: string): Promise<PemPair> {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  ]);
  return read(certFile, keyFile);
}

async function issue(
  dir: string,
  name: string,
  ca: PemPair,
  usage: 'serverAuth' | 'clientAuth',
  altNames: string,
): Promise<PemPair> {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const ext = join(dir, `${name}.ext`);
  await writeFile(ext, `subjectAltName=${altNames}\nextendedKeyUsage=${usage}\n`);
  await run('openssl', [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    csr,
    '-subj',
    `/CN=${name}`,
  ]);
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    ca.certFile,
    '-CAkey',
    ca.keyFile,
    '-CAcreateserial',
    '-out',
    certFile,
    '-days',
    '2',
    '-extfile',
    ext,
  ]);
  return read(certFile, keyFile);
}

async function read(certFile: string, keyFile: string): Promise<PemPair> {
  return { certFile, keyFile, cert: await readFile(certFile), key: await readFile(keyFile) };
}
