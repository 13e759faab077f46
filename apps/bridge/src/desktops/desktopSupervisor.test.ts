// The command line's local desktop, kept running for real: Xvnc killed from outside → the
// supervisor says in words that it is being started again, /readyz's probe fails meanwhile, and
// a fresh sandboxed desktop comes up with its new socket allowed (the old one taken back); past
// the restart limit it stays down and says so; a stop is never mistaken for a crash.
import { startLocalDesktop } from '@overlay-companion/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { DesktopSupervisor } from './desktopSupervisor.js';
import { DesktopReachError } from './errors.js';

const supervisors: DesktopSupervisor[] = [];
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.stop()));
});

async function supervised(maxRestarts?: number) {
  const allowed = new Set<string>();
  const supervisor = await DesktopSupervisor.start({
    start: () => startLocalDesktop({ sandbox: true, xterm: false, windowManager: false }),
    allowSocket: (path) => {
      allowed.add(path);
      return () => allowed.delete(path);
    },
    logger: silentLogger(),
    ...(maxRestarts === undefined ? {} : { maxRestarts }),
  });
  supervisors.push(supervisor);
  return { supervisor, allowed };
}

describe('DesktopSupervisor', () => {
  it('starts the desktop again when its Xvnc dies, and says so meanwhile', async () => {
    const { supervisor, allowed } = await supervised();
    const first = supervisor.current;
    expect(await supervisor.probe(2000)).toBe(true);
    process.kill(first.pid, 'SIGKILL');
    await waitUntil(() => supervisor.state === 'restarting', 5000);
    expect(() => supervisor.running()).toThrow(DesktopReachError);
    expect(() => supervisor.running()).toThrow(/being started again/);
    expect(await supervisor.probe(500)).toBe(false);
    await waitUntil(() => supervisor.state === 'running', 20_000);
    const second = supervisor.current;
    expect(second.rfbPath).not.toBe(first.rfbPath);
    expect(allowed.has(second.rfbPath)).toBe(true);
    expect(await supervisor.probe(2000)).toBe(true);
    expect(supervisor.running()).toBe(second);
  }, 40_000);

  it('stays down past its restart limit, saying why', async () => {
    const { supervisor } = await supervised(1);
    const first = supervisor.current;
    process.kill(first.pid, 'SIGKILL');
    await waitUntil(() => supervisor.state === 'restarting', 5000);
    await waitUntil(() => supervisor.state === 'running', 20_000);
    expect(supervisor.current).not.toBe(first);
    process.kill(supervisor.current.pid, 'SIGKILL');
    await waitUntil(() => supervisor.state === 'down', 10_000);
    expect(() => supervisor.running()).toThrow(/is not started again/);
    expect(await supervisor.probe(500)).toBe(false);
  }, 60_000);

  it('does not start a stopped desktop again', async () => {
    const { supervisor } = await supervised();
    const first = supervisor.current;
    await supervisor.stop();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(supervisor.current).toBe(first);
    expect(supervisor.state).toBe('running');
    expect(await supervisor.probe(500)).toBe(false);
  }, 20_000);
});
