// File transfer to and from an RDP desktop through guacd's drive redirection, all real: Apache
// guacd, xrdp + xorgxrdp (chansrv mounts the redirected drive with FUSE under the session
// user's ~/thinclient_drives), the bridge over HTTP. A 50 MiB file sent through the API is read
// by the session user from the redirected drive with the same SHA-256; a 50 MiB file the session
// user writes onto the drive comes back from the API byte-identical; both are audited; and a
// browser's own Guacamole `put` on its tunnel reaches nothing. Skips (with the reason) where
// guacd or xrdp is missing, fails there under OC_REQUIRE_GUACD=1.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { API, CSRF_HEADER, FILES_API, type DesktopView } from '@overlay-companion/protocol';
import { afterAll, beforeAll, expect, it, type TestContext } from 'vitest';
import { startWithDesktopControl, type ControlledBridge } from '../bridge.js';
import { signIn, type BrowserSession } from '../testing/browserSession.js';
import { skipOrFail, startTestGuacd, type TestGuacd } from '../testing/guacd.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startTestAccess } from '../testing/testAccess.js';
import type { TestAccess } from '../testing/testAccess.js';
import { registerSecret } from '../testing/testLogs.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { TunnelClient } from '../testing/tunnelClient.js';
import { startTestXrdp, type TestXrdp } from '../testing/xrdp.js';
import { readClipboard } from '../testing/xside.js';
import { rdpDriveFolder } from './rdpDrive.js';

const run = promisify(execFile);
const SIZE = 50 * 1024 * 1024;
const SLOW = { timeout: 240_000, retry: 1 };
const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

let skipped: string | undefined;
let guacd: TestGuacd | undefined;
let xrdp: TestXrdp | undefined;
let fixture: TestAccess | undefined;
let bridge: ControlledBridge | undefined;
let admin: BrowserSession;
let desktop: DesktopView;
let driveRoot: string;
let tunnel: TunnelClient | undefined;

/** A shell line as the RDP session's own user (the drive's FUSE mount is theirs alone). */
async function asSessionUser(line: string): Promise<string> {
  const { stdout } = await run('runuser', ['-u', xrdp?.username ?? '', '--', 'bash', '-c', line], {
    maxBuffer: 1024 * 1024,
  });
  return stdout;
}

const onDrive = (name: string): string => `~/thinclient_drives/GUACFS/${name}`;

beforeAll(async () => {
  const startedGuacd = await startTestGuacd();
  if ('skip' in startedGuacd) {
    skipped = skipOrFail('RDP file transfer', startedGuacd.skip);
    return;
  }
  guacd = startedGuacd;
  const startedXrdp = await startTestXrdp();
  if ('skip' in startedXrdp) {
    skipped = skipOrFail('RDP file transfer', startedXrdp.skip);
    return;
  }
  xrdp = startedXrdp;
  fixture = await startTestAccess();
  driveRoot = join(await mkdtemp(join(tmpdir(), 'oc-rdp-drives-')), 'drives');
  bridge = await startWithDesktopControl(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir: fixture.dataDir,
      webRoot: join(fixture.dataDir, 'no-web-build'),
      guacd: { host: '127.0.0.1', port: 9 },
      connection: { protocol: 'vnc', params: {} },
    },
    {
      access: fixture.access,
      guacdForRecords: { host: guacd.host, port: guacd.port },
      files: { rdpDriveRoot: driveRoot },
    },
    { logger: fixture.logger },
  );
  admin = await signIn(bridge.url, ADMIN_USERNAME, ADMIN_PASSWORD);
  const made = await admin.request(API.desktops, {
    body: {
      name: 'RDP',
      kind: 'guacd-rdp',
      params: { host: startedXrdp.host, port: startedXrdp.port, username: startedXrdp.username },
      secrets: { password: startedXrdp.password },
    },
  });
  if (made.status !== 201)
    throw new Error(`adding the desktop: ${made.status} ${await made.text()}`);
  desktop = (await made.json()) as DesktopView;

  // A window opens the desktop: guacd logs in over RDP with the drive redirected.
  const ticket = await admin.request(API.tickets, {
    body: { socket: 'tunnel', desktop: desktop.id },
  });
  const { ticket: value } = (await ticket.json()) as { ticket: string };
  registerSecret(value);
  tunnel = await TunnelClient.open(bridge.url, value);
  await xrdp.session(90_000);
  // chansrv mounts the drive once the RDP client has announced it.
  await eventually(
    'the redirected drive in the session',
    async () =>
      (await asSessionUser('ls ~/thinclient_drives')).includes('GUACFS') ? true : undefined,
    60_000,
  );
}, 240_000);

afterAll(async () => {
  await tunnel?.close();
  await bridge?.close();
  await fixture?.close();
  await xrdp?.stop();
  await guacd?.stop();
}, 60_000);

function skipIfMissing(ctx: TestContext): void {
  if (skipped !== undefined) ctx.skip(skipped);
}

async function auditDetail(name: string): Promise<string> {
  return eventually(`the audit entry of ${name}`, async () => {
    const entries = await fixture?.access.store.audit.query({ kind: 'file_transfer', limit: 50 });
    return (
      entries?.find((e) => e.outcome === 'ok' && (e.summary ?? '').includes(`"${name}"`))?.detail ??
      undefined
    );
  });
}

it(
  'sends 50 MiB that the RDP session reads from its redirected drive, byte-identical',
  SLOW,
  async (ctx) => {
    skipIfMissing(ctx);
    const data = randomBytes(SIZE);
    const sent = await fetch(new URL(FILES_API.file(desktop.id, 'up.bin'), bridge?.url), {
      method: 'PUT',
      body: data,
      headers: {
        origin: new URL(admin.url).origin,
        cookie: admin.cookie,
        [CSRF_HEADER]: admin.csrf,
        'content-type': 'application/octet-stream',
      },
    });
    expect(sent.status).toBe(201);
    const inSession = (await asSessionUser(`sha256sum ${onDrive('up.bin')}`)).split(' ')[0];
    expect(inSession).toBe(sha(data));
    const detail = await auditDetail('up.bin');
    expect(detail).toContain(`sha256=${sha(data)}`);
    expect(detail).toContain(`size=${SIZE}`);
    expect(detail).toContain(`desktop=${desktop.id}`);
  },
);

it('fetches 50 MiB the RDP session wrote onto its drive, byte-identical', SLOW, async (ctx) => {
  skipIfMissing(ctx);
  const made = await asSessionUser(
    `head -c ${SIZE} /dev/urandom > ${onDrive('down.bin')} && sha256sum ${onDrive('down.bin')}`,
  );
  const inSession = made.split(' ')[0];
  const list = (await (await admin.request(FILES_API.list(desktop.id))).json()) as {
    files: { name: string; size: number }[];
  };
  expect(list.files).toContainEqual(expect.objectContaining({ name: 'down.bin', size: SIZE }));
  const res = await admin.request(FILES_API.file(desktop.id, 'down.bin'));
  expect(res.status).toBe(200);
  const got = Buffer.from(await res.arrayBuffer());
  expect(got.length).toBe(SIZE);
  expect(sha(got)).toBe(inSession);
  expect(await auditDetail('down.bin')).toContain(`sha256=${inSession}`);
});

it("passes no browser's own Guacamole upload to guacd", SLOW, async (ctx) => {
  skipIfMissing(ctx);
  // As guacamole-common-js would on the `filesystem` object guacd offers the connection's owner.
  tunnel?.send('put', 0, 7, 'text/plain', '/evil.txt');
  tunnel?.send('blob', 7, Buffer.from('planted').toString('base64'));
  tunnel?.send('end', 7);
  tunnel?.send('file', 8, 'text/plain', 'evil2.txt');
  tunnel?.send('blob', 8, Buffer.from('planted').toString('base64'));
  tunnel?.send('end', 8);
  // Then a clipboard stream, which does reach the session: guacd handles one user's
  // instructions in order, so once the session has it, any upload before it would be there.
  const barrier = `barrier-${randomBytes(4).toString('hex')}`;
  tunnel?.send('clipboard', 9, 'text/plain');
  tunnel?.send('blob', 9, Buffer.from(barrier).toString('base64'));
  tunnel?.send('end', 9);
  const session = await xrdp?.session();
  await eventually(
    'the clipboard in the RDP session',
    async () => ((await readClipboard(session?.env ?? {})) === barrier ? true : undefined),
    30_000,
  );
  const marker = await asSessionUser(`ls ${onDrive('')}`);
  const names = await readdir(rdpDriveFolder(driveRoot, desktop.id));
  expect(names).not.toContain('evil.txt');
  expect(names).not.toContain('evil2.txt');
  expect(marker).not.toContain('evil');
});
