// The transfer folder's free-space check on a real filesystem: a write that would leave less
// than the reserve free is refused before anything is created, saying how much is usable.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
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
