// Test support: bridges of one site in this process — each on its own free loopback port with its
// own data dir, all on one PostgreSQL database and one NATS (real ones: testing/natsServer.ts and
// store/testing/postgres.ts). The first one made adds the admin and the test tokens; the others
// find them in the database, as a bridge started beside a running site does. Each bridge's log
// goes into memory (`log.text()`) and to the run's log dir.
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Mode } from '@overlay-companion/protocol';
import { pino } from 'pino';
import { createAccess } from '../../auth/access.js';
import { tokenHint } from '../../auth/apiTokens.js';
import { hashPassword } from '../../auth/passwords.js';
import { sha256Hex } from '../../auth/secrets.js';
import {
  startWithDesktopControl,
  type ControlledBridge,
  type ControlledBridgeOptions,
} from '../../bridge.js';
import { DesktopSecretBox } from '../../desktops/credentials.js';
import { openStore } from '../../store/openStore.js';
import type { PersonRecord } from '../../store/types.js';
import { signIn, type BrowserSession } from '../../testing/browserSession.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, withAuditQueue } from '../../testing/testAccess.js';
import type { AuditQueueLimits } from '../../audit/auditQueue.js';
import type { BridgeConfigInput } from '../../config.js';
import { TOKEN } from '../../mcp/testing/fixtures.js';
import type { SiteConfig } from '../siteConfig.js';
import type { SharedLimits } from '../../limits/rateLimit.js';
import { removeDataDir } from '../../testing/dataDirs.js';

export { TOKEN };

export interface SiteBridge extends ControlledBridge {
  name: string;
  admin: PersonRecord;
  /** The admin signed in to this bridge over HTTP. */
  session: BrowserSession;
  ticket(): Promise<string>;
  /** Every line this bridge logged. */
  log: { text(): string };
  /** The plane of the command line's desktop (the admin's). */
  desktopId: string;
}

export interface SiteBridgeOptions {
  name: string;
  databaseUrl: string;
  site: SiteConfig;
  leaseTtlMs?: number;
  initialMode?: Mode;
  sharedRateLimits?: SharedLimits;
  /** The audit queue's bounds (fault tests make them small). */
  auditQueue?: AuditQueueLimits;
  /** In place of the default desktop server and connection (e.g. a gateway pool's). */
  bridgeConfig?: Pick<BridgeConfigInput, 'guacd' | 'connection' | 'tunnel'>;
  /** File transfer (e.g. one RDP drive root for every bridge of the site). */
  files?: ControlledBridgeOptions['files'];
}

/** One key for the whole site: desktop credentials sealed on one bridge open on the others. */
const SITE_SECRET_KEY = 'site-test-key-0123456789abcdef0123456789abcdef';

export async function startSiteBridge(options: SiteBridgeOptions): Promise<SiteBridge> {
  const dataDir = await mkdtemp(join(tmpdir(), `oc-site-${options.name}-`));
  const store = await openStore({ dataDir, databaseUrl: options.databaseUrl });
  const lines: string[] = [];
  const streams: pino.StreamEntry[] = [
    { level: 'debug', stream: { write: (line: string) => void lines.push(line) } },
  ];
  // The run's log dir gets every line too (the log scan looks for secrets in them).
  const logDir = process.env.OC_TEST_LOG_DIR;
  if (logDir !== undefined && logDir !== '')
    streams.push({
      level: 'debug',
      stream: pino.destination({
        dest: join(
          logDir,
          `site-${options.name}-${process.pid}-${randomBytes(4).toString('hex')}.log`,
        ),
        sync: true,
        mkdir: true,
      }),
    });
  const logger = pino({ name: `site-${options.name}`, level: 'debug' }, pino.multistream(streams));
  const admin =
    (await store.people.byUsername(ADMIN_USERNAME)) ??
    (await store.people.add({
      username: ADMIN_USERNAME,
      displayName: 'Ada Admin',
      passwordHash: await hashPassword(ADMIN_PASSWORD),
      role: 'admin',
    }));
  if ((await store.tokens.byHash(sha256Hex(TOKEN))) === undefined)
    await store.tokens.create({
      id: 'tok_site_test',
      personId: admin.id,
      name: 'site test token',
      tokenHash: sha256Hex(TOKEN),
      hint: tokenHint(TOKEN),
      createdAt: Date.now(),
      expiresAt: null,
    });
  const access = withAuditQueue(createAccess({ store, logger }), store, logger, options.auditQueue);
  let bridge: ControlledBridge;
  try {
    bridge = await startWithDesktopControl(
      {
        host: '127.0.0.1',
        port: 0,
        dataDir,
        webRoot: join(dataDir, 'no-web-build'),
        guacd: { host: '127.0.0.1', port: 9 },
        connection: { protocol: 'vnc', params: {} },
        ...options.bridgeConfig,
      },
      {
        access,
        initialMode: options.initialMode ?? 'assist',
        ...(options.sharedRateLimits === undefined
          ? {}
          : { sharedRateLimits: options.sharedRateLimits }),
        secretBox: await DesktopSecretBox.open({ dataDir, envKey: SITE_SECRET_KEY }),
        ...(options.files === undefined ? {} : { files: options.files }),
        site: {
          config: options.site,
          ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
        },
      },
      { logger },
    );
  } catch (err) {
    await access.close();
    await store.close();
    await removeDataDir(dataDir);
    throw err;
  }
  const session = await signIn(bridge.url, ADMIN_USERNAME, ADMIN_PASSWORD);
  const desktopId = await bridge.desktopControl.directory.cliDesktopId();
  if (desktopId === undefined) throw new Error('the site bridge made no desktop for its admin');
  return {
    ...bridge,
    name: options.name,
    admin,
    session,
    desktopId,
    ticket: () => session.ticket('viewer'),
    log: { text: () => lines.join('') },
    close: async () => {
      await bridge.close();
      await access.close();
      await store.close();
      await removeDataDir(dataDir);
    },
  };
}
