// A transfer's limits in time and space, through a real bridge over HTTP (sign-in, CSRF, SQLite)
// into an RDP desktop's real drive folder (no RDP session is needed for the bridge's side). The
// idle limit is lowered to IDLE_MS (the bridge's is TRANSFER_IDLE_MS): an upload trickled over
// many times that limit in all still lands whole (there is no total limit — Node's 5-minute
// request timeout cut long uploads before); one whose browser stops sending is ended with
// nothing kept and audited; one refused before its body (no sign-in) does not keep its
// connection, however slowly bytes keep coming; a download whose browser stops reading is ended
// and audited, quietly: its connection closed, one warning in the log, and nothing printed on
// stderr (the HTTP server prints a stack there for an answer whose stream fails). The drive folder's quota is lowered to QUOTA: what it holds (what the session
// wrote there too, in subfolders) and the uploads under way into it count, and an upload past
// it is refused.
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '@overlay-companion/gateway/testing';
import {
  API,
  CSRF_HEADER,
  FILES_API,
  PARTIAL_PREFIX,
  type DesktopView,
} from '@overlay-companion/protocol';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ControlledBridge } from '../bridge.js';
import type { AuditRecord } from '../store/types.js';
import { signIn, type BrowserSession } from '../testing/browserSession.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startTestAccess } from '../testing/testAccess.js';
import type { TestAccess } from '../testing/testAccess.js';
import { rdpDriveFolder } from './rdpDrive.js';
import { startFilesBridge } from './testing/filesBridge.js';

const IDLE_MS = 600;
const QUOTA = 1024 * 1024;
const KIB = 1024;
const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

let fixture: TestAccess;
let bridge: ControlledBridge;
let admin: BrowserSession;
let desktop: DesktopView;
let folder: string;

/** The bridge's log lines (JSON). */
const logged: string[] = [];

beforeAll(async () => {
  fixture = await startTestAccess({
    logger: pino({ level: 'info' }, { write: (line: string) => void logged.push(line) }),
  });
  const driveRoot = join(await mkdtemp(join(tmpdir(), 'oc-transfer-limits-')), 'drives');
  await mkdir(driveRoot);
  bridge = await startFilesBridge(fixture, {
    rdpDriveRoot: driveRoot,
    idleMs: IDLE_MS,
    rdpDriveQuotaBytes: QUOTA,
  });
  admin = await signIn(bridge.url, ADMIN_USERNAME, ADMIN_PASSWORD);
  const made = await admin.request(API.desktops, {
    body: {
      name: 'RDP',
      kind: 'guacd-rdp',
      params: { host: '127.0.0.1', port: 9, username: 'nobody' },
    },
  });
  if (made.status !== 201)
    throw new Error(`adding the desktop: ${made.status} ${await made.text()}`);
  desktop = (await made.json()) as DesktopView;
  folder = rdpDriveFolder(driveRoot, desktop.id);
  // The folder is made at the first listing, as the Files panel does.
  expect((await admin.request(FILES_API.list(desktop.id))).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await fixture?.close();
});

beforeEach(async () => {
  for (const name of await readdir(folder)) await rm(join(folder, name), { recursive: true });
});

/** An upload whose bytes the test sends itself: in `pieces`, with `pause` ms between them. */
function trickle(
  name: string,
  data: Buffer,
  pieces: number,
  pause: number,
  stopAfter = pieces,
): { answer: Promise<{ status: number; body: string }> } {
  const url = new URL(FILES_API.file(desktop.id, name), bridge.url);
  const req = httpRequest(url, {
    method: 'PUT',
    headers: {
      origin: url.origin,
      cookie: admin.cookie,
      [CSRF_HEADER]: admin.csrf,
      'content-type': 'application/octet-stream',
      'content-length': String(data.length),
    },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() });
        req.destroy();
      });
    });
  });
  void (async () => {
    const step = Math.ceil(data.length / pieces);
    for (let i = 0; i < stopAfter; i += 1) {
      if (req.destroyed) return;
      req.write(data.subarray(i * step, (i + 1) * step));
      if (i < pieces - 1) await sleep(pause);
    }
    if (stopAfter === pieces) req.end();
    // Otherwise the browser just stops sending, its connection left open.
  })();
  return { answer };
}

const transfers = async (): Promise<AuditRecord[]> =>
  fixture.access.store.audit.query({ kind: 'file_transfer', limit: 100 });
const auditOf = (name: string, outcome: RegExp): Promise<AuditRecord> =>
  eventually(`the audit entry of ${name}`, async () =>
    (await transfers()).find(
      (e) => (e.summary ?? '').includes(JSON.stringify(name)) && outcome.test(e.outcome ?? ''),
    ),
  );

describe('time: no total limit, an idle one', () => {
  it('an upload trickled over many idle limits in all lands whole', async () => {
    const data = randomBytes(200 * KIB);
    const started = Date.now();
    // 12 pieces, a third of the idle limit apart: four idle limits in all, never one idle.
    const { answer } = trickle('slow.bin', data, 12, IDLE_MS / 3);
    const done = await answer;
    expect(Date.now() - started).toBeGreaterThan(3 * IDLE_MS);
    expect(done.status, done.body).toBe(201);
    expect(JSON.parse(done.body)).toMatchObject({ name: 'slow.bin', sha256: sha(data) });
    expect(sha(await readFile(join(folder, 'slow.bin')))).toBe(sha(data));
    await auditOf('slow.bin', /^ok$/);
  });

  it('an upload whose browser stops sending is ended, nothing kept, and audited', async () => {
    const data = randomBytes(200 * KIB);
    const { answer } = trickle('stalled.bin', data, 10, 50, 4);
    const done = await answer;
    expect(done.status).toBe(408);
    expect((JSON.parse(done.body) as { error: string }).error).toMatch(/No data moved/);
    expect(await readdir(folder)).toEqual([]);
    await auditOf('stalled.bin', /^failed: No data moved/);
    // The space it claimed is free again: the same file, sent in one go, fits the quota.
    const again = trickle('stalled.bin', data, 1, 0);
    expect((await again.answer).status).toBe(201);
  });

  it('an upload refused before its body (no sign-in) does not keep its connection', async () => {
    // The upload path has no request deadline (requestDeadline.ts): a refused one must still end
    // however slowly its sender keeps trickling bytes.
    const url = new URL(FILES_API.file(desktop.id, 'anonymous.bin'), bridge.url);
    const req = httpRequest(url, {
      method: 'PUT',
      headers: {
        origin: url.origin,
        'content-type': 'application/octet-stream',
        'content-length': String(1024 * KIB),
      },
    });
    req.on('error', () => undefined); // the connection the bridge ends
    const status = new Promise<number>((resolve) =>
      req.once('response', (res: IncomingMessage) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }),
    );
    const closed = new Promise<void>((resolve) => req.once('close', resolve));
    let open = true;
    void closed.then(() => (open = false));
    req.write(Buffer.alloc(KIB));
    expect(await status).toBe(401);
    while (open) {
      req.write(Buffer.alloc(KIB));
      await sleep(IDLE_MS / 3);
    }
    await closed;
    expect(await readdir(folder)).toEqual([]);
  });

  it('a download whose browser stops reading is ended and audited, quietly', async () => {
    // Far more than the socket and stream buffers between the file and the stalled reader hold.
    const data = randomBytes(48 * 1024 * KIB);
    await writeFile(join(folder, 'big.bin'), data);
    const url = new URL(FILES_API.file(desktop.id, 'big.bin'), bridge.url);
    const printed: string[] = [];
    const spies = [
      vi
        .spyOn(console, 'error')
        .mockImplementation((...args) => void printed.push(String(args[0]))),
      vi.spyOn(console, 'info').mockImplementation((...args) => void printed.push(String(args[0]))),
      vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
        printed.push(String(chunk));
        return true;
      }),
    ];
    try {
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = httpRequest(url, { headers: { origin: url.origin, cookie: admin.cookie } });
        req.once('error', reject).once('response', resolve).end();
      });
      expect(res.statusCode).toBe(200);
      const closed = new Promise<void>((resolve) => res.once('close', resolve));
      res.on('error', () => undefined);
      res.pause(); // the browser stops reading; its connection stays open
      const entry = await auditOf('big.bin', /^cancelled after \d+ of \d+ bytes$/);
      expect(entry.outcome).not.toBe(`cancelled after ${data.length} of ${data.length} bytes`);
      // The bridge has closed the connection: a browser reading again finds the download cut
      // short (its socket notices once it reads what was buffered)…
      res.resume();
      await closed;
      expect(res.complete).toBe(false);
      // …and says so in its log, at warn, printing nothing on stderr.
      const line = await eventually('the warning in the log', () =>
        Promise.resolve(logged.find((l) => l.includes('a download was ended: the browser read'))),
      );
      expect(line).toMatch(/"level":40/);
      expect(printed).toEqual([]);
      res.destroy();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe("space: the RDP drive folder's quota", () => {
  const send = (name: string, data: Buffer) => trickle(name, data, 1, 0).answer;
  /** An upload whose first KiB only is sent: a refusal must not wait for the rest. */
  const refused = (name: string, size: number) =>
    trickle(name, randomBytes(size), size / KIB, IDLE_MS / 3, 1).answer;

  it('refuses an upload that would take the folder past its quota', async () => {
    expect((await send('one.bin', randomBytes(600 * KIB))).status).toBe(201);
    const answer = await refused('two.bin', 600 * KIB);
    expect(answer.status).toBe(507);
    expect(answer.body).toMatch(/transfer folder may hold 1 MiB/);
    expect(await readdir(folder)).toEqual(['one.bin']);
    expect((await send('small.bin', randomBytes(100 * KIB))).status).toBe(201);
  });

  it('counts what the session wrote there itself, subfolders too', async () => {
    await mkdir(join(folder, 'made on the desktop'));
    await writeFile(join(folder, 'made on the desktop', 'big'), randomBytes(900 * KIB));
    expect((await refused('fits-not.bin', 200 * KIB)).status).toBe(507);
    await rm(join(folder, 'made on the desktop'), { recursive: true });
    expect((await send('fits.bin', randomBytes(200 * KIB))).status).toBe(201);
  });

  it('counts an upload still under way: two at once cannot both take the same room', async () => {
    const first = randomBytes(600 * KIB);
    const slow = trickle('first.bin', first, 6, IDLE_MS / 3);
    // Its room is claimed once its partial file is there.
    await eventually('the first upload under way', async () =>
      (await readdir(folder)).some((n) => n.startsWith(PARTIAL_PREFIX)) ? true : undefined,
    );
    expect((await refused('second.bin', 600 * KIB)).status).toBe(507);
    expect((await slow.answer).status).toBe(201);
    expect(sha(await readFile(join(folder, 'first.bin')))).toBe(sha(first));
  });
});
