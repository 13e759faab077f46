// serve's control-plane flags and environment: --mode, --no-auth (removed: the real command
// exits 2 and says what to use instead), OC_MCP_TOKEN / OC_PUBLIC_URL / OC_ADMIN_* /
// DATABASE_URL checks, OC_RDP_DRIVE_QUOTA (parsed, refused with its fix, and in force in a real
// serve: an upload past it into an RDP desktop's drive folder is refused), and the banner: where
// to sign in and where to get a token, never a token.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, type DesktopView } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './args.js';
import { UsageError } from '../errors.js';
import { scriptedServeEnv, spawnCli, startServe } from '../headless/testing/cliProcess.js';
import { signIn } from '../testing/browserSession.js';
import { uploadAs } from '../files/testing/filesBridge.js';
import { serveBanner } from './serveBanner.js';
import { startTestBridge } from '../mcp/testing/fixtures.js';

const parse = (line: string, env: NodeJS.ProcessEnv = {}) =>
  parseCommandLine(line.split(' ').filter(Boolean), env);

describe('serve control-plane flags', () => {
  it('adds nothing when no flag is given, and --mode when given', () => {
    const plain = parse('serve');
    expect(plain.command === 'serve' && plain.options.mode).toBeUndefined();
    expect(plain.command === 'serve' && plain.options.admin).toBeUndefined();
    expect(plain.command === 'serve' && plain.options.mcpToken).toBeUndefined();
    const given = parse('serve --mode autopilot');
    expect(given).toMatchObject({ command: 'serve', options: { mode: 'autopilot' } });
  });

  it('refuses --no-auth, saying what replaced it', () => {
    for (const line of ['serve --no-auth', 'serve --no-auth --host 0.0.0.0']) {
      expect(() => parse(line)).toThrow(UsageError);
      expect(() => parse(line)).toThrow(/--no-auth was removed.*OC_ADMIN_USER.*OC_MCP_TOKEN/);
    }
  });

  it('reads the scripted admin and the env token', () => {
    const env = {
      OC_ADMIN_USER: 'ada',
      OC_ADMIN_PASSWORD: 'a-long-password',
      OC_MCP_TOKEN: 'x'.repeat(32),
    };
    expect(parse('serve', env)).toMatchObject({
      options: {
        admin: { username: 'ada', password: 'a-long-password' },
        mcpToken: 'x'.repeat(32),
      },
    });
  });

  it('refuses an unknown mode, a short token, half an admin, a short password, a non-http public URL', () => {
    expect(() => parse('serve --mode wild')).toThrow(/--mode expects one of passive, assist/);
    expect(() => parse('serve', { OC_MCP_TOKEN: 'short' })).toThrow(/OC_MCP_TOKEN is too short/);
    expect(() => parse('serve', { OC_ADMIN_USER: 'ada' })).toThrow(
      /Set both OC_ADMIN_USER and OC_ADMIN_PASSWORD/,
    );
    expect(() => parse('serve', { OC_ADMIN_USER: 'ada', OC_ADMIN_PASSWORD: 'short' })).toThrow(
      /OC_ADMIN_PASSWORD must be at least 10 characters/,
    );
    expect(() =>
      parse('serve', { OC_ADMIN_USER: 'a b', OC_ADMIN_PASSWORD: 'a-long-password' }),
    ).toThrow(/OC_ADMIN_USER may contain only/);
    expect(() => parse('serve', { DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => parse('serve', { OC_PUBLIC_URL: 'ftp://x' })).toThrow(/OC_PUBLIC_URL/);
    expect(parse('serve', { OC_PUBLIC_URL: 'https://desk.example.org/' })).toMatchObject({
      options: { publicUrl: 'https://desk.example.org/' },
    });
  });

  it(
    'makes the real command exit 2 with the explanation for --no-auth',
    { timeout: 30_000 },
    async () => {
      const run = spawnCli(['serve', '--no-auth']);
      expect((await run.exited).code).toBe(2);
      expect(run.stderr()).toMatch(/--no-auth was removed/);
      expect(run.stderr()).toContain('OC_ADMIN_PASSWORD');
      expect(run.stdout()).toBe('');
    },
  );
});

describe('OC_DESKTOP_HOME_QUOTA', () => {
  it('takes a whole number of bytes of at least 16 MiB, and refuses anything else with what to write', () => {
    expect(parse('serve')).not.toHaveProperty('options.desktopHomeQuotaBytes');
    expect(parse('serve', { OC_DESKTOP_HOME_QUOTA: '5368709120' })).toMatchObject({
      options: { desktopHomeQuotaBytes: 5 * 1024 ** 3 },
    });
    for (const bad of ['5G', '-5', '1e9', '1048576'])
      expect(() => parse('serve', { OC_DESKTOP_HOME_QUOTA: bad }), bad).toThrow(
        new UsageError(
          `OC_DESKTOP_HOME_QUOTA is the bytes one local desktop's home folder may hold, a whole number of at least 16777216 (16 MiB; the default is 2147483648, 2 GiB; 10737418240 is 10 GiB), got "${bad}".`,
        ),
      );
  });
});

describe('OC_RDP_DRIVE_QUOTA', () => {
  it('takes a whole number of bytes, and refuses anything else with what to write', () => {
    expect(parse('serve')).not.toHaveProperty('options.rdpDriveQuotaBytes');
    expect(parse('serve', { OC_RDP_DRIVE_QUOTA: ' 10737418240 ' })).toMatchObject({
      options: { rdpDriveQuotaBytes: 10 * 1024 ** 3 },
    });
    for (const bad of ['2G', '-5', '1.5', '1e9', '0', '1000', '99999999999999999999'])
      expect(() => parse('serve', { OC_RDP_DRIVE_QUOTA: bad }), bad).toThrow(
        new UsageError(
          `OC_RDP_DRIVE_QUOTA is the bytes one RDP desktop's drive folder may hold, a whole number of at least 1048576 (1 MiB; the default is 2147483648, 2 GiB; 10737418240 is 10 GiB), got "${bad}".`,
        ),
      );
  });

  it(
    'makes the real command exit 2 on a bad value, and caps uploads when given',
    { timeout: 90_000 },
    async () => {
      const refused = spawnCli(['serve'], { OC_RDP_DRIVE_QUOTA: '2GiB' });
      expect((await refused.exited).code).toBe(2);
      expect(refused.stderr()).toMatch(/OC_RDP_DRIVE_QUOTA is the bytes .* got "2GiB"/);

      const dataDir = await mkdtemp(join(tmpdir(), 'oc-rdp-quota-'));
      const scripted = scriptedServeEnv();
      const { cli, url } = await startServe(
        ['--vnc', '127.0.0.1:9', '--port', '0', '--data-dir', dataDir],
        {
          ...scripted.env,
          OC_RDP_DRIVE_DIR: join(dataDir, 'drives'),
          OC_RDP_DRIVE_QUOTA: String(1024 * 1024),
        },
      );
      try {
        const admin = await signIn(url, scripted.username, scripted.password);
        const made = await admin.request(API.desktops, {
          body: { name: 'RDP', kind: 'guacd-rdp', params: { host: '127.0.0.1', port: 9 } },
        });
        expect(made.status).toBe(201);
        const desktop = (await made.json()) as DesktopView;
        expect((await uploadAs(admin, desktop.id, 'fits.bin', 512 * 1024)).status).toBe(201);
        const over = await uploadAs(admin, desktop.id, 'over.bin', 768 * 1024);
        expect(over.status).toBe(507);
        expect(await over.text()).toMatch(/transfer folder may hold 1 MiB/);
      } finally {
        await cli.shutdown();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  );
});

describe('serve banner', () => {
  it('prints the one-time setup link on a first run, the MCP endpoint and where to get a token', async () => {
    const bridge = await startTestBridge();
    try {
      const text = serveBanner({
        bridge,
        firstRun: { kind: 'setup', code: 'setup-code-123' },
        envToken: false,
      });
      expect(text).toContain(
        `First run: open ${new URL('/setup', bridge.url).toString()}#code=setup-code-123`,
      );
      expect(text).toContain(
        `MCP endpoint: ${bridge.mcpUrl} (Streamable HTTP, "Authorization: Bearer <token>")`,
      );
      expect(text).toContain(`create a token on ${new URL('/config', bridge.url).toString()}`);
      expect(text).not.toContain('OC_MCP_TOKEN');
    } finally {
      await bridge.close();
    }
  });

  it('names the admin to sign in as, and never prints a token', async () => {
    const bridge = await startTestBridge();
    try {
      const created = serveBanner({
        bridge,
        firstRun: { kind: 'admin-created', username: 'ada' },
        envToken: true,
      });
      expect(created).toContain('Sign in:  as ada');
      expect(created).toContain('OC_MCP_TOKEN is set');
      expect(created).not.toContain('First run');
      const existing = serveBanner({
        bridge,
        firstRun: { kind: 'admin-exists', username: 'ada' },
        envToken: false,
      });
      expect(existing).toContain(
        `Sign in:  at ${new URL('/signin', bridge.url).toString()} (admin: ada)`,
      );
      for (const text of [created, existing]) {
        expect(text).not.toMatch(/oc_[A-Za-z0-9_-]{43}/);
        expect(text).not.toContain('test-token-');
        expect(text).not.toContain('Bearer test');
      }
    } finally {
      await bridge.close();
    }
  });
});
