// Video exports are limited (exportSlots.ts): one rendering per person — a second tab or a script
// with their session is refused with a 429 saying to wait for the first — and a few for the whole
// machine (a quarter of the CPUs, at least one), shared by every bridge on it through lock files
// (exportSlotFiles.ts): refused with a 429 saying to try again later or take the event track now.
// A slot's holder that dies, even by SIGKILL, frees it. An export whose request goes away is
// stopped: an export nobody will receive (a person who closed the tab, a script that asked and
// hung up) of a long recording held its slot at "try again later" for as long as it took to
// render — hours for a day-long recording. And ffmpeg renders at a low CPU and I/O priority
// (exportPriority.ts), so it never competes with live desktops on equal terms. The slots
// themselves, another process holding them, then real bridges over HTTP with real ffmpeg
// rendering a six-hour recording (its render would take far longer than this test).
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eventually } from '@overlay-companion/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../headless/testing/cliProcess.js';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { addPerson } from '../perimeter/testing/people.js';
import type { BrowserSession } from '../testing/browserSession.js';
import { EXPORT_NICE } from './exportPriority.js';
import { EXPORT_RETRY_MS, ExportSlots, VIDEO_EXPORTS_PER_MACHINE } from './exportSlots.js';
import { writeSampleRecording, writeSixHourRecording } from './testing/sampleRecording.js';

const MINE = /You already have a video export rendering/;
const FULL =
  /This machine is already rendering \d+ video exports? \(for this bridge or another on it\)/;
const refusal = (taken: ReturnType<ExportSlots['take']>) => (taken.ok ? '' : taken.message);

describe('export slots', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-export-slots-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('one per person, a few per machine — shared by every holder of the folder — freed once each', () => {
    const slots = new ExportSlots(join(dir, 'few'), 2);
    // Another bridge on the machine: its own people, the same slots.
    const other = new ExportSlots(join(dir, 'few'), 2);
    const ada = slots.take('ada');
    expect(ada.ok).toBe(true);
    expect(refusal(slots.take('ada'))).toMatch(MINE);
    expect(other.take('bo').ok).toBe(true);
    expect(refusal(slots.take('cy'))).toMatch(FULL);
    expect(refusal(other.take('cy'))).toMatch(FULL);
    if (ada.ok) {
      ada.release();
      ada.release();
    }
    expect(other.take('cy').ok).toBe(true);
    expect(slots.take('dee').ok).toBe(false);
  });

  it('refuses a slots folder that is not this user’s alone, saying how to fix it', async () => {
    const open = join(dir, 'open');
    await mkdir(open, { mode: 0o755 });
    await chmod(open, 0o755);
    const taken = new ExportSlots(open, 1).take('ada');
    expect(taken).toMatchObject({ ok: false, status: 503 });
    expect(refusal(taken)).toMatch(/is not a folder of this user's alone .* Remove it/);
    const theirs = join(dir, 'theirs');
    await mkdir(theirs, { mode: 0o700 });
    await chown(theirs, 65534, 65534);
    expect(new ExportSlots(theirs, 1).take('ada')).toMatchObject({ ok: false, status: 503 });
  });

  it('shares the slots with another process, and a holder killed with SIGKILL frees its slot', async () => {
    const shared = join(dir, 'machine');
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('./testing/slotHolder.ts', import.meta.url)),
        shared,
        String(VIDEO_EXPORTS_PER_MACHINE),
      ],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(holder, 'exit');
    let said = '';
    for await (const chunk of holder.stdout as AsyncIterable<Buffer>) {
      said += chunk.toString();
      if (said.includes('\n')) break;
    }
    expect(said).toBe('held\n');
    const slots = new ExportSlots(shared);
    expect(refusal(slots.take('ada'))).toMatch(FULL);
    holder.kill('SIGKILL');
    await exited;
    const mine = slots.take('ada');
    expect(mine.ok).toBe(true);
    if (mine.ok) mine.release();
  });
});

describe('video exports over HTTP', () => {
  let bridge: TestBridge;
  /** A second bridge on this machine, sharing its export slots with the first. */
  let neighbour: TestBridge;
  let slotsDir: string;
  let watcher: BrowserSession;
  let long: string;
  let short: string;
  let neighbours: string;

  beforeAll(async () => {
    slotsDir = await mkdtemp(join(tmpdir(), 'oc-export-slots-'));
    bridge = await startTestBridge({ recording: { exportSlots: slotsDir } });
    neighbour = await startTestBridge({ recording: { exportSlots: slotsDir } });
    const desktopId = (await bridge.desktopControl.directory.cliDesktopId()) ?? '';
    long = await writeSixHourRecording(bridge, desktopId);
    short = await writeSampleRecording(bridge, desktopId, Date.now() - 10_000);
    const theirDesktop = (await neighbour.desktopControl.directory.cliDesktopId()) ?? '';
    neighbours = await writeSampleRecording(neighbour, theirDesktop, Date.now() - 10_000);
    ({ session: watcher } = await addPerson(bridge.session, 'cy', { grant: 'view' }));
  });
  afterAll(async () => {
    await bridge?.close();
    await neighbour?.close();
    await rm(slotsDir, { recursive: true, force: true });
  });

  const exportAs = async (
    session: BrowserSession,
    id: string,
    signal?: AbortSignal,
    format: 'webm' | 'mp4' = 'webm',
  ) => {
    const res = await fetch(new URL(`/api/recordings/${id}/export.${format}`, session.url), {
      headers: { cookie: session.cookie, origin: new URL(session.url).origin },
      ...(signal === undefined ? {} : { signal }),
    });
    const body = await res.arrayBuffer();
    return { status: res.status, body, text: new TextDecoder().decode(body) };
  };
  /** `session`'s long export, started and holding its slot (their next one is refused). */
  const holdLong = async (session: BrowserSession) => {
    const hangUp = new AbortController();
    const done = exportAs(session, long, hangUp.signal, 'mp4').catch(() => undefined);
    const again = await eventually('the long export holds its slot', async () => {
      const res = await exportAs(session, short);
      return MINE.test(res.text) ? res : false;
    });
    expect(again.status).toBe(429);
    expect(JSON.parse(again.text)).toMatchObject({ retry_after_ms: EXPORT_RETRY_MS });
    return async () => {
      hangUp.abort();
      await done;
    };
  };
  /** `session`'s export of `id`, once a slot is free for it: a WebM file. */
  const exportedOnceFree = async (what: string, session: BrowserSession, id: string) => {
    const body = await eventually(
      what,
      async () => {
        const res = await exportAs(session, id);
        return res.status === 200 ? res.body : false;
      },
      20_000,
    );
    // A WebM file (EBML magic).
    expect([...new Uint8Array(body.slice(0, 4))]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
  };

  it('stops an export whose request went away, and the next export runs', async () => {
    // Under way, it holds its slot (the person's one export), until its request goes away.
    const hangUp = await holdLong(bridge.session);
    await hangUp();
    await exportedOnceFree('the next export runs', bridge.session, short);
  });

  it('refuses a person’s second export while the first renders; the machine’s limit holds for others', async () => {
    const hangUp = await holdLong(bridge.session);
    // Another person: refused while the machine is at its limit (one on a machine of up to 7
    // CPUs, like this one), rendered where it has room for more.
    const theirs = await exportAs(watcher, short);
    if (VIDEO_EXPORTS_PER_MACHINE === 1) {
      expect(theirs.status).toBe(429);
      expect(theirs.text).toMatch(FULL);
    } else {
      expect(theirs.status).toBe(200);
    }
    await hangUp();
    await exportedOnceFree('the watcher’s export runs once the slot is free', watcher, short);
  }, 60_000);

  it('shares the machine’s limit with another bridge on it', async () => {
    // Every slot of the machine taken by exports on the first bridge, one person each.
    const people = [bridge.session, watcher];
    for (let n = people.length; n < VIDEO_EXPORTS_PER_MACHINE; n++)
      people.push(
        (await addPerson(bridge.session, `holder${String(n)}`, { grant: 'view' })).session,
      );
    const hangUps = [];
    for (const person of people.slice(0, VIDEO_EXPORTS_PER_MACHINE))
      hangUps.push(await holdLong(person));
    // The neighbour bridge has no export of its own running, and is refused all the same.
    const refused = await exportAs(neighbour.session, neighbours);
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(FULL);
    expect(JSON.parse(refused.text)).toMatchObject({ retry_after_ms: EXPORT_RETRY_MS });
    for (const hangUp of hangUps) await hangUp();
    await exportedOnceFree(
      'the neighbour’s export runs once a slot is free',
      neighbour.session,
      neighbours,
    );
  }, 60_000);

  it('answers 503 while the slots folder is not the bridge’s alone: how to fix it to an admin only', async () => {
    const open = join(slotsDir, 'open');
    await mkdir(open, { mode: 0o755 });
    await chmod(open, 0o755);
    const misplaced = await startTestBridge({ recording: { exportSlots: open } });
    try {
      const desktopId = (await misplaced.desktopControl.directory.cliDesktopId()) ?? '';
      const id = await writeSampleRecording(misplaced, desktopId, Date.now() - 10_000);
      const admins = await exportAs(misplaced.session, id);
      expect(admins.status).toBe(503);
      expect(admins.text).toContain(`${open} (this machine's export slots) is not a folder`);
      const { session: member } = await addPerson(misplaced.session, 'di', { grant: 'view' });
      const members = await exportAs(member, id);
      expect(members.status).toBe(503);
      expect(members.text).toContain('an admin who exports a video is told why');
      expect(members.text).not.toContain(open);
      // Put right, it exports.
      await chmod(open, 0o700);
      expect((await exportAs(misplaced.session, id)).status).toBe(200);
    } finally {
      await misplaced.close();
    }
  });

  it('runs ffmpeg at a low CPU and I/O priority, every one of its threads', async () => {
    const hangUp = await holdLong(bridge.session);
    try {
      // This process is the bridge's: its ffmpeg, once encoding (its encoder threads started,
      // which it does only after its first frame, so after it was lowered).
      const ffmpeg = await eventually('the export’s ffmpeg is encoding', async () => {
        for (const pid of await childrenNamed('ffmpeg'))
          if ((await readdir(`/proc/${String(pid)}/task`)).length > 1) return pid;
        return false;
      });
      const threads = await readdir(`/proc/${String(ffmpeg)}/task`);
      const nice = await Promise.all(
        threads.map(async (tid) =>
          niceOf(await readFile(`/proc/${String(ffmpeg)}/task/${tid}/stat`, 'utf8')),
        ),
      );
      expect(nice.length).toBeGreaterThan(1);
      for (const value of nice) expect(value).toBeGreaterThanOrEqual(EXPORT_NICE);
      // Debian's util-linux has ionice, and CI's machine too.
      const { stdout } = await promisify(execFile)('ionice', ['-p', String(ffmpeg)]);
      expect(stdout.trim()).toBe('best-effort: prio 7');
    } finally {
      await hangUp();
    }
  }, 60_000);
});

/** The fields of a /proc/<pid>/stat line after its command name (the 3rd field onward). */
const statFields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** A /proc stat line's nice value (its 19th field). */
const niceOf = (stat: string): number => Number(statFields(stat)[16]);

/** This process's children running `name`. */
async function childrenNamed(name: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    if (comm === name && Number(statFields(stat)[1]) === process.pid) found.push(Number(entry));
  }
  return found;
}
