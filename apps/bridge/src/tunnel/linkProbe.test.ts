// The desktop-server probe against the real servers: Xvnc over its Unix socket and over TCP, and
// xrdp (skipped, with the reason, where it cannot run), each answering, and Xvnc still letting
// clients in after many probes; the same servers behind a paused proxy (testing/stallProxy.ts)
// are silent within the deadline; a closed port refuses.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RfbClient, startLocalDesktop } from '@overlay-companion/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StallProxy } from '../testing/stallProxy.js';
import { startTestXrdp, type TestXrdp } from '../testing/xrdp.js';
import { SharedProbes, probeDesktopServer, probeTargetOf, type ProbeOutcome } from './linkProbe.js';

const cleanups: Array<() => Promise<unknown>> = [];
let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'oc-probe-'));
  cleanups.push(() => rm(workDir, { recursive: true, force: true }));
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
}, 60_000);

async function freeClosedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('probeTargetOf', () => {
  it('reads where guacd would connect, a VNC path being a Unix socket', () => {
    expect(probeTargetOf({ protocol: 'vnc', params: { hostname: '/run/x.sock' } })).toEqual({
      protocol: 'vnc',
      path: '/run/x.sock',
    });
    expect(probeTargetOf({ protocol: 'rdp', params: { hostname: 'desk' } })).toEqual({
      protocol: 'rdp',
      host: 'desk',
      port: 3389,
    });
    expect(probeTargetOf({ protocol: 'vnc', params: { hostname: 'h', port: '5901' } })).toEqual({
      protocol: 'vnc',
      host: 'h',
      port: 5901,
    });
    expect(probeTargetOf({ protocol: 'vnc', params: {} })).toBeUndefined();
    expect(
      probeTargetOf({ protocol: 'rdp', params: { hostname: 'h', port: 'x' } }),
    ).toBeUndefined();
  });
});

describe('probing a real Xvnc', () => {
  let unixPath: string;
  let tcp: { host: string; port: number };

  beforeAll(async () => {
    const desktop = await startLocalDesktop({ windowManager: false, rfbTcp: true });
    cleanups.push(() => desktop.stop());
    unixPath = desktop.rfbPath;
    if (desktop.port === undefined) throw new Error('Xvnc opened no TCP port');
    tcp = { host: desktop.host ?? '127.0.0.1', port: desktop.port };
  }, 60_000);

  it('is answered over the Unix socket and over TCP', async () => {
    expect(await probeDesktopServer({ protocol: 'vnc', path: unixPath }, 4_000)).toBe('answered');
    expect(await probeDesktopServer({ protocol: 'vnc', ...tcp }, 4_000)).toBe('answered');
  });

  it('leaves the server willing: after ten probes a client still gets in', async () => {
    // TigerVNC blacklists a client that leaves mid-handshake five times ("Too many security
    // failures"), which a probe that only read the banner made of every client, guacd included.
    for (let i = 0; i < 10; i += 1) {
      expect(await probeDesktopServer({ protocol: 'vnc', ...tcp }, 4_000)).toBe('answered');
    }
    const client = await RfbClient.connect({ ...tcp, connectTimeoutMs: 4_000 });
    client.close();
  });

  it('is silent behind a stalled link, and answered again once it resumes', async () => {
    const proxy = await StallProxy.start({ host: '127.0.0.1', port: 0 }, tcp);
    cleanups.push(() => proxy.close());
    const end = proxy.listening as { host: string; port: number };
    proxy.pause();
    const started = Date.now();
    expect(await probeDesktopServer({ protocol: 'vnc', ...end }, 1_000)).toBe('silent');
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    proxy.resume();
    expect(await probeDesktopServer({ protocol: 'vnc', ...end }, 4_000)).toBe('answered');
  });

  it('is refused where nothing listens', async () => {
    const port = await freeClosedPort();
    expect(await probeDesktopServer({ protocol: 'vnc', host: '127.0.0.1', port }, 4_000)).toBe(
      'refused',
    );
  });
});

describe('probing a real xrdp', () => {
  let xrdp: TestXrdp | { skip: string };

  beforeAll(async () => {
    xrdp = await startTestXrdp();
    if (!('skip' in xrdp)) cleanups.push(() => (xrdp as TestXrdp).stop());
  }, 60_000);

  it('is answered with a Connection Confirm, and silent behind a stalled link', async (ctx) => {
    if ('skip' in xrdp) {
      if (process.env.OC_REQUIRE_GUACD === '1') throw new Error(`xrdp required: ${xrdp.skip}`);
      ctx.skip(xrdp.skip);
      return;
    }
    const server = { host: xrdp.host, port: xrdp.port };
    expect(await probeDesktopServer({ protocol: 'rdp', ...server }, 4_000)).toBe('answered');
    const proxy = await StallProxy.start({ host: '127.0.0.1', port: 0 }, server);
    cleanups.push(() => proxy.close());
    const end = proxy.listening as { host: string; port: number };
    expect(await probeDesktopServer({ protocol: 'rdp', ...end }, 4_000)).toBe('answered');
    proxy.pause();
    expect(await probeDesktopServer({ protocol: 'rdp', ...end }, 1_000)).toBe('silent');
  });
});

describe('SharedProbes', () => {
  it('joins a probe in flight for the same server instead of knocking twice', async () => {
    const answers: Array<(outcome: ProbeOutcome) => void> = [];
    const probes = new SharedProbes(
      () => new Promise<ProbeOutcome>((resolve) => answers.push(resolve)),
    );
    const target = { protocol: 'rdp' as const, host: 'h', port: 1 };
    const first = probes.run(target, 1000);
    const second = probes.run(target, 1000);
    const other = probes.run({ ...target, port: 2 }, 1000);
    expect(second).toBe(first);
    expect(answers).toHaveLength(2);
    answers[0]?.('silent');
    answers[1]?.('answered');
    expect(await first).toBe('silent');
    expect(await other).toBe('answered');
    // Once it is over, the next probe knocks again.
    void probes.run(target, 1000);
    expect(answers).toHaveLength(3);
  });
});

describe('SharedProbes for a receipt (notBefore)', () => {
  it('does not let a probe begun before the input vouch for it: it waits that one out and knocks again', async () => {
    let clock = 1_000;
    const answers: Array<(outcome: ProbeOutcome) => void> = [];
    const probes = new SharedProbes(
      () => new Promise<ProbeOutcome>((resolve) => answers.push(resolve)),
      () => clock,
    );
    const target = { protocol: 'rdp' as const, host: 'h', port: 1 };
    const early = probes.run(target, 1000);
    clock = 1_050; // the input is sent after that probe began
    const fresh = probes.run(target, 1000, 1_050);
    expect(answers).toHaveLength(1);
    answers[0]?.('answered');
    expect(await early).toBe('answered');
    await Promise.resolve();
    // Only now a probe that began after the input; its answer is the receipt's.
    expect(answers).toHaveLength(2);
    answers[1]?.('silent');
    expect(await fresh).toBe('silent');
    // One begun since the input is joined.
    const joined = probes.run(target, 1000, 1_050);
    const again = probes.run(target, 1000, 1_050);
    expect(again).toBe(joined);
  });
});
