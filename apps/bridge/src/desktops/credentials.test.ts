// Desktop credentials at rest, on real files: a seal opens only with the same key and for the
// same desktop, any altered byte is refused, the key file is made once (0600) and kept, a short
// OC_SECRET_KEY is refused at start, and a real SQLite store written through the repository
// holds no password bytes (database and WAL read back from disk).
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { StartupError } from '../errors.js';
import { SECRET_KEY_FILE } from '../store/dataDir.js';
import { newId } from '../store/ids.js';
import { openStore } from '../store/openStore.js';
import { registerSecret } from '../testing/testLogs.js';
import { DesktopSecretBox, DesktopSecretError } from './credentials.js';

const PASSWORD = 'Desk-Pa55word-which-must-stay-hidden';
registerSecret(PASSWORD);
const ENV_KEY = 'an-operator-chosen-key-of-at-least-32-chars';
const OTHER_KEY = 'another-operator-chosen-key-of-32-chars-or-more';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'oc-credentials-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('DesktopSecretBox', () => {
  test('round trip, in the v1 format, a fresh IV each time', async () => {
    const box = await DesktopSecretBox.open({ dataDir: root, envKey: ENV_KEY });
    const sealed = box.seal('dsk_a', { password: PASSWORD });
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(PASSWORD);
    expect(box.unseal('dsk_a', sealed)).toEqual({ password: PASSWORD });
    expect(box.seal('dsk_a', { password: PASSWORD })).not.toBe(sealed);
    // The same key from the environment opens it in another bridge.
    const again = await DesktopSecretBox.open({
      dataDir: join(root, 'elsewhere'),
      envKey: ENV_KEY,
    });
    expect(again.unseal('dsk_a', sealed)).toEqual({ password: PASSWORD });
  });

  test('another key does not open it', async () => {
    const box = await DesktopSecretBox.open({ dataDir: root, envKey: ENV_KEY });
    const other = await DesktopSecretBox.open({ dataDir: root, envKey: OTHER_KEY });
    const sealed = box.seal('dsk_a', { password: PASSWORD });
    expect(() => other.unseal('dsk_a', sealed)).toThrow(DesktopSecretError);
    expect(() => other.unseal('dsk_a', sealed)).toThrow(/OC_SECRET_KEY/);
  });

  test('a blob copied to another desktop does not open (the id is the AAD)', async () => {
    const box = await DesktopSecretBox.open({ dataDir: root, envKey: ENV_KEY });
    const sealed = box.seal('dsk_a', { password: PASSWORD });
    expect(() => box.unseal('dsk_b', sealed)).toThrow(DesktopSecretError);
  });

  test('any altered part is refused', async () => {
    const box = await DesktopSecretBox.open({ dataDir: root, envKey: ENV_KEY });
    const sealed = box.seal('dsk_a', { password: PASSWORD });
    const [version, iv, body] = sealed.split('.') as [string, string, string];
    const flip = (text: string, at: number) => {
      const bytes = Buffer.from(text, 'base64url');
      bytes[at] = (bytes[at] ?? 0) ^ 1;
      return bytes.toString('base64url');
    };
    for (const tampered of [
      `${version}.${flip(iv, 0)}.${body}`,
      `${version}.${iv}.${flip(body, 0)}`,
      `${version}.${iv}.${flip(body, Buffer.from(body, 'base64url').length - 1)}`,
      `${version}.${iv}.${body.slice(0, -4)}`,
      `v2.${iv}.${body}`,
      `${version}.${iv}`,
      '',
    ]) {
      expect(() => box.unseal('dsk_a', tampered), tampered).toThrow(DesktopSecretError);
    }
  });

  test('secret.key is made once (32 bytes, 0600) and reused; a short OC_SECRET_KEY is refused', async () => {
    const box = await DesktopSecretBox.open({ dataDir: root });
    const path = join(root, SECRET_KEY_FILE);
    const key = await readFile(path);
    expect(key.length).toBe(32);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await readdir(root)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    const sealed = box.seal('dsk_a', { password: PASSWORD });
    const reopened = await DesktopSecretBox.open({ dataDir: root });
    expect(await readFile(path)).toEqual(key);
    expect(reopened.unseal('dsk_a', sealed)).toEqual({ password: PASSWORD });
    // The environment's key wins over the file: a blob of the file's key does not open.
    const fromEnv = await DesktopSecretBox.open({ dataDir: root, envKey: ENV_KEY });
    expect(() => fromEnv.unseal('dsk_a', sealed)).toThrow(DesktopSecretError);

    await expect(DesktopSecretBox.open({ dataDir: root, envKey: 'too short' })).rejects.toThrow(
      StartupError,
    );
    await expect(DesktopSecretBox.open({ dataDir: root, envKey: 'too short' })).rejects.toThrow(
      /at least 32/,
    );
    await writeFile(path, Buffer.alloc(5), { mode: 0o600 });
    await expect(DesktopSecretBox.open({ dataDir: root })).rejects.toThrow(/5 bytes, not 32/);
  });

  test('a SQLite store written through the repository holds no password bytes', async () => {
    const dataDir = join(root, 'data');
    const store = await openStore({ dataDir });
    try {
      const box = await DesktopSecretBox.open({ dataDir });
      const owner = await store.people.add({
        username: 'owner',
        displayName: 'Owner',
        passwordHash: null,
        role: 'admin',
      });
      const id = newId('dsk');
      await store.desktops.add({
        id,
        name: 'Office',
        kind: 'guacd-rdp',
        params: { host: 'rdp.example', port: 3389, username: 'ada' },
        secret: box.seal(id, { password: PASSWORD }),
        ownerId: owner.id,
      });
      const stored = await store.desktops.byId(id);
      expect(box.unseal(id, stored?.secret ?? '')).toEqual({ password: PASSWORD });
      const files = (await readdir(dataDir)).filter((name) =>
        name.startsWith('overlay-companion.db'),
      );
      expect(files).toContain('overlay-companion.db-wal');
      let searched = 0;
      for (const name of files) {
        const bytes = await readFile(join(dataDir, name));
        searched += bytes.length;
        for (const encoding of ['utf8', 'utf16le'] as const) {
          expect(bytes.includes(Buffer.from(PASSWORD, encoding)), `${name} ${encoding}`).toBe(
            false,
          );
        }
      }
      // The row is there (the search looked at real data), only sealed.
      expect(searched).toBeGreaterThan(0);
      const all = Buffer.concat(await Promise.all(files.map((n) => readFile(join(dataDir, n)))));
      expect(all.includes(Buffer.from('rdp.example'))).toBe(true);
    } finally {
      await store.close();
    }
  });
});
