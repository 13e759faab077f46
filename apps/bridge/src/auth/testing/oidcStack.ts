// Test support: a real OpenID Provider (oidcProvider.ts) and a real bridge configured for it the
// way `serve` is — OC_OIDC_* parsed by oidcConfigFromEnv, an OidcSignIn whose callback is the
// bridge's own URL — with its log kept in memory so tests can prove no secret reached it, and a
// helper that walks a FetchBrowser through the provider's login and consent up to the callback.
// Options choose a web root (the built viewer, for Chromium) and how the browser names each side
// (a different host name for provider and bridge makes the provider's redirect cross-site).
import { Writable } from 'node:stream';
import { API } from '@overlay-companion/protocol';
import { pino } from 'pino';
import { startWithDesktopControl, type ControlledBridge } from '../../bridge.js';
import { registerSecret } from '../../testing/testLogs.js';
import { startTestAccess, type TestAccess } from '../../testing/testAccess.js';
import type { BucketLimit } from '../../limits/rateLimit.js';
import { oidcConfigFromEnv, OidcSignIn } from '../oidc.js';
import { FetchBrowser, formAction, type Visit } from './fetchBrowser.js';
import { startTestOidcProvider, type TestAccount, type TestOidcProvider } from './oidcProvider.js';

export const CLIENT_ID = 'overlay-companion';
export const CLIENT_SECRET = 'client-secret-0123456789-abcdefghij';
export const LABEL = 'Test IdP';
registerSecret(CLIENT_SECRET);

export interface OidcStack {
  idp: TestOidcProvider;
  bridge: ControlledBridge;
  fixture: TestAccess;
  oidc: OidcSignIn;
  /** The bridge's base URL as the browser reaches it. */
  bridgeUrl: string;
  /** Every line the bridge logged so far (debug level). */
  logs(): string;
  close(): Promise<void>;
}

export interface OidcStackOptions {
  accounts: TestAccount[];
  /** Extra OC_OIDC_* settings (e.g. OC_OIDC_AUTO_CREATE). */
  env?: NodeJS.ProcessEnv;
  /** Client authentication methods the provider takes (see startTestOidcProvider). */
  clientAuthMethods?: string[];
  /** A public client (no secret): PKCE is its only proof. */
  publicClient?: boolean;
  /** Serve this web root (apps/web/dist) instead of an empty directory. */
  webRoot?: string;
  /** How the browser names the bridge ('127.0.0.1' or 'localhost'). */
  bridgeHost?: string;
  /** How the issuer names the provider ('127.0.0.1' or 'localhost'). */
  providerHost?: string;
  /** Sign-ins one address may start; generous unless a test is about the limit. */
  startLimit?: BucketLimit;
}

export async function startOidcStack(options: OidcStackOptions): Promise<OidcStack> {
  for (const account of options.accounts) registerSecret(account.password);
  const lines: string[] = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
  const idp = await startTestOidcProvider({
    accounts: options.accounts,
    ...(options.providerHost === undefined ? {} : { hostname: options.providerHost }),
    ...(options.clientAuthMethods === undefined
      ? {}
      : { clientAuthMethods: options.clientAuthMethods }),
  });
  const closers: Array<() => Promise<void>> = [() => idp.stop()];
  const close = async (): Promise<void> => {
    for (const stop of closers.splice(0).reverse()) await stop();
  };
  try {
    const fixture = await startTestAccess({ logger });
    closers.push(() => fixture.close());
    const config = oidcConfigFromEnv({
      OC_OIDC_ISSUER: idp.issuer,
      OC_OIDC_CLIENT_ID: CLIENT_ID,
      ...(options.publicClient === true ? {} : { OC_OIDC_CLIENT_SECRET: CLIENT_SECRET }),
      OC_OIDC_LABEL: LABEL,
      ...options.env,
    });
    if (config === undefined) throw new Error('OC_OIDC_ISSUER was not picked up');
    // Known once the bridge listens; the callback is asked for only when a flow starts.
    const listening: { url?: string } = {};
    const oidc = new OidcSignIn(
      config,
      fixture.store,
      () => {
        if (listening.url === undefined) throw new Error('the bridge is not listening yet');
        return new URL(API.oidcCallback, listening.url).toString();
      },
      Date.now,
      // The flow tests start many sign-ins from 127.0.0.1; the limit has its own test.
      options.startLimit ?? { ratePerSecond: 1000, burst: 1000 },
    );
    const bridge = await startWithDesktopControl(
      {
        host: '127.0.0.1',
        port: 0,
        dataDir: fixture.dataDir,
        webRoot: options.webRoot ?? fixture.dataDir,
        // Nothing behind it: these tests never open a tunnel.
        guacd: { host: '127.0.0.1', port: 9 },
        connection: { protocol: 'vnc', params: {} },
      },
      { access: fixture.access, oidc },
      { logger },
    );
    closers.push(() => bridge.close());
    const bridgeUrl = `http://${options.bridgeHost ?? '127.0.0.1'}:${bridge.port}/`;
    listening.url = bridgeUrl;
    idp.addClient({
      clientId: CLIENT_ID,
      ...(options.publicClient === true ? {} : { clientSecret: CLIENT_SECRET }),
      redirectUri: new URL(API.oidcCallback, bridgeUrl).toString(),
    });
    return { idp, bridge, fixture, oidc, bridgeUrl, logs: () => lines.join(''), close };
  } catch (err) {
    await close();
    throw err;
  }
}

export const isCallback = (url: URL): boolean => url.pathname === API.oidcCallback;

/**
 * Starts a sign-in at the bridge in `browser`, logs in at the provider as `login`, consents when
 * asked, and stops right before the bridge's callback: returns the callback URL (code, state,
 * iss) without visiting it. `tamper` may rewrite the authorization URL on its way to the provider.
 */
export async function throughProvider(
  stack: OidcStack,
  browser: FetchBrowser,
  account: { sub: string; password: string },
  options: { next?: string; tamper?: (authorization: URL) => URL } = {},
): Promise<URL> {
  const start = new URL(API.oidcStart, stack.bridgeUrl);
  if (options.next !== undefined) start.searchParams.set('next', options.next);
  const toProvider = await browser.navigate(start, {
    stopBefore: (url) => url.pathname === '/auth',
  });
  if (toProvider.status !== 0) {
    throw new Error(
      `start did not send the browser to the provider: ${toProvider.status} ${toProvider.body}`,
    );
  }
  const authorization = options.tamper?.(toProvider.url) ?? toProvider.url;
  let visit: Visit = await browser.navigate(authorization, { stopBefore: isCallback });
  for (let step = 0; step < 4 && visit.status !== 0; step += 1) {
    const login = formAction(visit, '/login');
    const confirm = formAction(visit, '/confirm');
    if (login !== undefined) {
      visit = await browser.navigate(login, {
        method: 'POST',
        form: { login: account.sub, password: account.password },
        stopBefore: isCallback,
      });
    } else if (confirm !== undefined) {
      visit = await browser.navigate(confirm, { method: 'POST', form: {}, stopBefore: isCallback });
    } else {
      throw new Error(`unexpected provider page ${visit.url.href}: ${visit.status} ${visit.body}`);
    }
  }
  if (visit.status !== 0)
    throw new Error(`the provider never sent the browser back: ${visit.body}`);
  return visit.url;
}

/** The callback visited by `browser`: the bridge's answer, and the session cookie it set. */
export async function callback(
  stack: OidcStack,
  browser: FetchBrowser,
  url: URL,
): Promise<Visit & { sessionCookie: string | undefined }> {
  const visit = await browser.navigate(url);
  const name = stack.fixture.access.cookie.name;
  const line = visit.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  return { ...visit, sessionCookie: line?.slice(name.length + 1).split(';')[0] };
}
