// `npm start` talks: the real scripts/start.mjs run as a person would (`npm start -- --port 0`,
// a throwaway data dir, the build that exists) shows its five steps with an outcome each, prints
// no raw JSON log line, and ends with the viewer URL, the first-run setup link, the MCP endpoint,
// the /config page and the Claude Code command from the page's own module; the bridge it started
// answers, its JSON log is in the log file, and SIGINT (Ctrl-C) stops everything — the desktop's
// Xvnc included — with exit code 0.
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { claudeCodeCommand } from '../../apps/web/src/pages/console/config/clientConfig.js';
import { readableLogLine } from './bridgeOutput.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** True while a process whose command line mentions `text` runs. */
async function running(text: string): Promise<boolean> {
  try {
    await run('pgrep', ['-f', text]);
    return true;
  } catch {
    return false;
  }
}

describe('the bridge output filter', () => {
  it('keeps info lines off the terminal, shows warnings readably, passes other text through', () => {
    expect(readableLogLine('{"level":30,"msg":"bridge listening"}')).toBeUndefined();
    expect(
      readableLogLine('{"level":40,"part":"tunnel","msg":"tunnel could not be opened","why":"x"}'),
    ).toEqual({ readable: 'bridge warning (tunnel): tunnel could not be opened: x' });
    expect(readableLogLine('{"level":50,"msg":"request failed"}')).toEqual({
      readable: 'bridge error: request failed',
    });
    expect(readableLogLine('Received SIGINT; stopping...')).toEqual({
      passThrough: 'Received SIGINT; stopping...',
    });
  });
});

describe('npm start', () => {
  it('shows its steps, ends with URL, sign-in and client setup, and stops on SIGINT', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'oc-start-'));
    const child = spawn(
      process.execPath,
      ['scripts/start.mjs', '--port', '0', '--data-dir', dataDir],
      {
        cwd: ROOT,
        // `npm test` builds first; the build step itself is not what this checks.
        env: { ...process.env, OC_START_SKIP_BUILD: '1', OC_ADMIN_USER: '', OC_MCP_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 60_000;
      while (!stdout.includes('Press Ctrl-C to stop.')) {
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`no banner end:\n${stdout}\n--- stderr ---\n${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const lines = stdout.trimEnd().split('\n');
      // The steps, in order, each with its outcome.
      const steps = lines.filter((line) => /^\[\d\/5\] /.test(line));
      expect(steps.map((line) => line.slice(0, 5))).toEqual([
        '[1/5]',
        '[2/5]',
        '[3/5]',
        '[4/5]',
        '[5/5]',
      ]);
      expect(stdout).toMatch(/\[4\/5\] build.*\n\s+using the existing build/);
      expect(stdout).toMatch(/\[5\/5\] starting the desktop and the bridge \.\.\.\n\s+ready/);
      // No raw log line anywhere: JSON goes to the log file.
      for (const line of [...lines, ...stderr.split('\n')]) {
        expect(line.trimStart().startsWith('{'), line).toBe(false);
      }
      // The end: viewer URL, how to sign in, how to connect an AI client, then Ctrl-C.
      const url = /^\s+Open:\s+(http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(stdout)?.[1] ?? '';
      expect(url).not.toBe('');
      const setup = /^\s+First run: open (http:\/\/\S+\/setup#code=\S+)$/m.exec(stdout)?.[1];
      expect(setup).toBeDefined();
      const mcpUrl = new URL('/mcp', url).toString();
      expect(stdout).toContain(`MCP endpoint: ${mcpUrl}`);
      expect(stdout).toContain(`create a token on ${new URL('/config', url).toString()}`);
      expect(lines).toContain(`    ${claudeCodeCommand(mcpUrl)}`);
      expect(lines.at(-1)).toBe('Press Ctrl-C to stop.');
      const tail = lines.slice(lines.findIndex((line) => line.includes('Open:')));
      expect(tail.findIndex((l) => l.includes('First run'))).toBeLessThan(
        tail.findIndex((l) => l.includes('claude mcp add')),
      );

      // It really runs: ready, and the setup page answers.
      const ready = await fetch(new URL('readyz', url));
      expect([ready.status, await ready.text()]).toEqual([200, 'ready']);
      expect((await fetch(setup ?? '')).status).toBe(200);
      const log = readFileSync(join(ROOT, '.start-logs/bridge.log'), 'utf8');
      expect(log).toContain(`"url":"${url}"`);

      // Ctrl-C: the bridge and the desktop it started stop, and start exits 0.
      const xauthority = /XAUTHORITY=(\/\S+)\/Xauthority;/.exec(stdout)?.[1] ?? '';
      expect(await running(xauthority)).toBe(true);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(stderr).toContain('Received SIGINT; stopping...');
      expect(await running(xauthority)).toBe(false);
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGINT');
        await exited;
      }
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
