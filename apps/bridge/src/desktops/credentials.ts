// Desktop credentials at rest: sealed with AES-256-GCM under a key derived (HKDF-SHA256) from
// OC_SECRET_KEY, or from <dataDir>/secret.key (32 random bytes made on first use, 0600). Each
// seal has a fresh 12-byte IV, and the desktop's id is the additional data, so a sealed blob
// copied onto another desktop does not open there. Only what seal returns is stored; the
// password itself never reaches the database or a log.
import {
  createCipheriv,
  createDecipheriv,
  hkdfSync,
  randomBytes,
  type CipherGCM,
  type DecipherGCM,
} from 'node:crypto';
import { link, open, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DesktopSecrets } from '@overlay-companion/protocol';
import { StartupError } from '../errors.js';
import { SECRET_KEY_FILE, restrictFile } from '../store/dataDir.js';

/** Bytes of random key material in secret.key, and the least OC_SECRET_KEY must hold. */
const KEY_FILE_BYTES = 32;
export const MIN_ENV_KEY_LENGTH = 32;
const HKDF_INFO = 'overlay-companion desktop credentials v1';
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

/** A sealed value does not open: another key, another desktop, or altered. */
export class DesktopSecretError extends Error {
  override name = 'DesktopSecretError';
}

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** secret.key's bytes, made (32 random bytes, 0600, never overwritten) when it is missing. */
async function keyFileMaterial(dataDir: string): Promise<Buffer> {
  const path = join(dataDir, SECRET_KEY_FILE);
  try {
    return await readKeyFile(path);
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT') throw err;
  }
  // Written whole under a temporary name (O_EXCL), then linked into place, which fails when
  // another bridge on the same data dir got there first: nobody ever reads a half-written key.
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(randomBytes(KEY_FILE_BYTES));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await restrictFile(temporary);
    await link(temporary, path);
  } catch (err) {
    if (errnoCode(err) !== 'EEXIST') throw err;
  } finally {
    await unlink(temporary);
  }
  return readKeyFile(path);
}

async function readKeyFile(path: string): Promise<Buffer> {
  const info = await stat(path);
  const uid = process.getuid?.();
  if (uid !== undefined && (info.mode & 0o077) !== 0) {
    throw new StartupError(
      `The key file ${path} can be read by other users (mode ${(info.mode & 0o777).toString(8)}): anyone who reads it can open the stored desktop passwords. Run "chmod 600 ${path}" and start again.`,
    );
  }
  const bytes = await readFile(path);
  if (bytes.length !== KEY_FILE_BYTES) {
    throw new StartupError(
      `The key file ${path} holds ${bytes.length} bytes, not ${KEY_FILE_BYTES}: restore it from a backup (the stored desktop passwords open only with it), or remove it and set every desktop's password again.`,
    );
  }
  return bytes;
}

export class DesktopSecretBox {
  private constructor(private readonly key: Buffer) {}

  /**
   * The box for this bridge: from `envKey` (OC_SECRET_KEY) when given and not empty, else from
   * the data dir's secret.key (made when missing). Throws StartupError when the key is unusable.
   */
  static async open(options: {
    dataDir: string;
    envKey?: string | undefined;
  }): Promise<DesktopSecretBox> {
    const { envKey } = options;
    let material: Buffer;
    if (envKey !== undefined && envKey !== '') {
      if (envKey.length < MIN_ENV_KEY_LENGTH) {
        throw new StartupError(
          `OC_SECRET_KEY is ${envKey.length} characters long; it must have at least ${MIN_ENV_KEY_LENGTH} (e.g. the output of "openssl rand -base64 32"). Every bridge of a site needs the same value.`,
        );
      }
      material = Buffer.from(envKey, 'utf8');
    } else {
      material = await keyFileMaterial(options.dataDir);
    }
    const key = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), HKDF_INFO, 32));
    return new DesktopSecretBox(key);
  }

  /** `v1.<iv>.<ciphertext+tag>` (base64url) for this desktop only. */
  seal(desktopId: string, secrets: DesktopSecrets): string {
    const iv = randomBytes(IV_BYTES);
    const cipher: CipherGCM = createCipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(desktopId, 'utf8'));
    const sealed = Buffer.concat([
      cipher.update(JSON.stringify(DesktopSecrets.parse(secrets)), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return `${VERSION}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  /** The secrets sealed for this desktop; DesktopSecretError when they do not open. */
  unseal(desktopId: string, sealed: string): DesktopSecrets {
    const parts = sealed.split('.');
    const [version, ivText, bodyText] = parts;
    if (
      parts.length !== 3 ||
      version !== VERSION ||
      ivText === undefined ||
      bodyText === undefined
    ) {
      throw new DesktopSecretError(
        `The stored credentials of desktop ${desktopId} are not in a format this bridge reads: set the desktop's password again.`,
      );
    }
    const iv = Buffer.from(ivText, 'base64url');
    const body = Buffer.from(bodyText, 'base64url');
    if (iv.length !== IV_BYTES || body.length < TAG_BYTES) {
      throw new DesktopSecretError(
        `The stored credentials of desktop ${desktopId} are damaged: set the desktop's password again.`,
      );
    }
    let plain: string;
    try {
      const decipher: DecipherGCM = createDecipheriv(ALGORITHM, this.key, iv, {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(desktopId, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      plain = Buffer.concat([
        decipher.update(body.subarray(0, body.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new DesktopSecretError(
        `The stored credentials of desktop ${desktopId} do not open with this bridge's key: OC_SECRET_KEY (or the data dir's ${SECRET_KEY_FILE}) differs from the one they were sealed with, or they were altered. Restore that key, or set the desktop's password again.`,
      );
    }
    const parsed = DesktopSecrets.safeParse(safeJson(plain));
    if (!parsed.success) {
      throw new DesktopSecretError(
        `The stored credentials of desktop ${desktopId} opened but do not read: set the desktop's password again.`,
      );
    }
    return parsed.data;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
