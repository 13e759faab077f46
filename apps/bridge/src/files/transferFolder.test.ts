// The transfer folder's free-space check on a real filesystem: a write that would leave less
// than the reserve free is refused before anything is created, saying how much is usable; and
// uploads still under way count as taken, so two cannot both pass on the same free space. A
// folder with a quota refuses an upload past it, and refuses rather than counts on and on when
// the folder holds more entries than it counts.
import { mkdir, mkdtemp, readdir, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { eventually } from '@overlay-companion/gateway/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TransferError, TransferFolder } from './transferFolder.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'oc-transfer-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const folder = (reserveBytes: number): TransferFolder =>
  new TransferFolder({
    path: join(dir, 'Transfer'),
    uid: process.getuid?.() ?? 0,
    gid: process.getgid?.() ?? 0,
    reserveBytes,
  });

it('refuses a file the free space cannot hold (with the reserve kept), creating nothing', async () => {
  const refused = await folder(Number.MAX_SAFE_INTEGER)
    .write('big.bin', 1024, Readable.from([Buffer.alloc(1024)]))
    .catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(TransferError);
  expect(refused).toMatchObject({
    status: 507,
    message: expect.stringContaining('too little free space') as string,
  });
  expect(await readdir(join(dir, 'Transfer'))).toEqual([]);
});

it('writes the same file when the space is there', async () => {
  const done = await folder(0).write('big.bin', 1024, Readable.from([Buffer.alloc(1024)]));
  expect(done.size).toBe(1024);
  expect(await readdir(join(dir, 'Transfer'))).toEqual(['big.bin']);
});

it('counts an upload still under way as taken space', async () => {
  const MiB = 1024 * 1024;
  const space = await statfs(dir);
  const free = space.bavail * space.bsize;
  // Room for one 100 MiB upload with 50 MiB to spare (however the machine's other writers move
  // the free space meanwhile), not for two.
  const tight = folder(free - 150 * MiB);
  const first = new PassThrough();
  const under = tight.write('first.bin', 100 * MiB, first);
  first.write(Buffer.alloc(1024));
  // Its space is claimed before its partial file is made.
  await eventually('the first partial file', async () =>
    (await readdir(join(dir, 'Transfer'))).some((n) => n.startsWith('.oc-upload-'))
      ? true
      : undefined,
  );
  const second = await tight
    .write('second.bin', 100 * MiB, Readable.from([Buffer.alloc(1)]))
    .catch((err: unknown) => err);
  expect(second).toMatchObject({ status: 507 });
  // The first one ends (here: fails short) and gives its claim back.
  first.end();
  await expect(under).rejects.toMatchObject({ status: 400 });
  const small = await tight.write('third.bin', 1024, Readable.from([Buffer.alloc(1024)]));
  expect(small.size).toBe(1024);
});

it('with a quota, refuses an upload into a folder of more entries than it counts', async () => {
  const path = join(dir, 'Crowded');
  const crowded = new TransferFolder({
    path,
    uid: process.getuid?.() ?? 0,
    gid: process.getgid?.() ?? 0,
    reserveBytes: 0,
    quotaBytes: 1024 * 1024,
    quotaMaxEntries: 10,
  });
  const upload = () => crowded.write('one.bin', 16, Readable.from([Buffer.alloc(16)]));
  await mkdir(join(path, 'nested'), { recursive: true });
  for (let i = 0; i < 8; i += 1) await writeFile(join(path, 'nested', `f${i}`), '');
  expect((await upload()).size).toBe(16); // 9 entries: counted
  await rm(join(path, 'one.bin'));
  for (const name of ['one more', 'and another']) await writeFile(join(path, 'nested', name), '');
  const refused = await upload().catch((err: unknown) => err);
  expect(refused).toMatchObject({
    status: 507,
    message: expect.stringContaining('more than 10 files and folders') as string,
  });
  expect(await readdir(path)).toEqual(['nested']);
});
