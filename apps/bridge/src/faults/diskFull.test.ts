// A real full disk under SQLite: the bridge's data dir on a small tmpfs the test mounts (root
// only; skipped with the reason elsewhere), filled to the last byte by a file the test writes and
// then deletes. Reads still work there, so calls go on; every call that returned ok has its
// audit entry afterwards, in order and at its time; input is refused once the small audit queue
// is full; a sign-in (which writes its session) answers 503 with words and Retry-After; once the
// file is gone the queue is written and an audit_outage entry says where the gap was.
import { execFile } from 'node:child_process';
import { mkdtemp, open, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  ADMIN_USERNAME,
  connectClient,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import {
  answerCalls,
  auditCaughtUp,
  callUntilInputRefused,
  entriesSince,
  expectEveryCallAudited,
  makeCall,
  outageEntry,
  type CallMade,
} from './testing/outageRun.js';

const run = promisify(execFile);
const QUEUE = { entries: 10, bytes: 1024 * 1024 };

/** Writes `path` until the disk refuses (ENOSPC). */
async function fillDisk(path: string): Promise<void> {
  const file = await open(path, 'w');
  const chunk = Buffer.alloc(4096, 0x55);
  try {
    for (;;) await file.write(chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    await file.close().catch(() => undefined);
  }
}

describe('a full disk under SQLite', () => {
  let mountPoint: string | undefined;
  let skip: string | undefined;
  let bridge: TestBridge | undefined;
  let client: Client | undefined;
  let viewer: ScriptedViewer | undefined;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'oc-disk-full-'));
    try {
      await run('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', dir]);
      mountPoint = dir;
    } catch (err) {
      skip = `cannot mount a tmpfs here (needs root): ${(err as Error).message.split('\n')[0]}`;
      await rmdir(dir);
      return;
    }
    bridge = await startTestBridge({
      initialMode: 'autopilot',
      access: { dataDir: join(dir, 'data'), auditQueue: QUEUE },
    });
    ({ client } = await connectClient(bridge));
    viewer = await ScriptedViewer.connect(bridge);
    answerCalls(viewer);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await viewer?.close();
    await bridge?.close();
    if (mountPoint !== undefined) {
      await run('umount', [mountPoint]);
      await rmdir(mountPoint);
    }
  }, 60_000);

  it('loses no audit entry, refuses input while the queue is full, answers 503 with words', async (ctx) => {
    if (skip !== undefined || mountPoint === undefined || bridge === undefined) {
      ctx.skip(skip);
      return;
    }
    if (client === undefined) throw new Error('no client');
    const b = bridge;
    const filler = join(mountPoint, 'filler');
    const from = Date.now();
    const calls: CallMade[] = [await makeCall(client, 'click_at')];
    expect(calls[0]?.outcome).toBe('ok');

    await fillDisk(filler);
    const filled = Date.now();
    calls.push(...(await callUntilInputRefused(client, filled + 15_000)));
    const signIn = await fetch(new URL(API.signIn, b.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: new URL(b.url).origin },
      body: JSON.stringify({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD }),
    });
    // Not ready while the audit cannot be written (reads still work, so the database answers).
    const readyz = await fetch(new URL('readyz', b.url));
    await rm(filler);
    const freed = Date.now();
    expect(readyz.status).toBe(503);
    expect(await readyz.text()).toMatch(/the audit log cannot be written/);

    expect(signIn.status).toBe(503);
    expect(signIn.headers.get('retry-after')).toBe('5');
    expect(await signIn.text()).toMatch(/The disk under the database is full; retry in 5 s\./);
    const refusedInput = calls.filter((c) => c.tool === 'click_at' && c.outcome !== 'ok');
    expect(refusedInput.length).toBeGreaterThanOrEqual(3);
    for (const call of refusedInput) {
      expect(call.outcome).toBe('rate_limited');
      expect(call.message).toMatch(/the disk under the database is full/);
    }

    await auditCaughtUp(b);
    const caughtUp = Date.now();
    const entries = await entriesSince(b, from);
    const ok = expectEveryCallAudited(calls, entries);
    const gap = outageEntry(entries);
    expect(entries.at(-1)).toBe(gap);
    console.info(
      `[faults] disk full ${freed - filled} ms: ${calls.length} calls, ${ok} ok, ` +
        `${refusedInput.length} input refused; ${entries.filter((e) => e.kind === 'tool_call').length} tool-call entries; ` +
        `written ${caughtUp - freed} ms after space came back`,
    );
    expect((await makeCall(client, 'click_at')).outcome).toBe('ok');
    // Ready again once the queue is written (the readiness probe caches for a second).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await fetch(new URL('readyz', b.url));
    expect(again.status === 503 ? await again.text() : 'ready').not.toMatch(/audit/);
  }, 60_000);
});
