// Test support: a real OpenID Provider (the npm `oidc-provider`, the certified Node.js OP) on a
// free loopback port, for tests of the bridge's OpenID Connect sign-in. Everything that makes
// the flow real is the provider's own: discovery, the authorization endpoint, PKCE (required,
// S256), the token endpoint with client authentication, signed ID tokens, userinfo. Only the
// login and consent pages are ours, small and plain, instead of the provider's dev interactions:
// those accept any password and pull a web font from fonts.googleapis.com (a stalled fetch on a
// closed network); ours check each test account's password and load nothing from elsewhere.
//
// Clients are registered with addClient() once the bridge listens (its callback URL carries
// its port); the provider is rebuilt with the full client list each time, over the same storage
// and keys. Until then discovery already answers, so the bridge can be configured with the
// issuer first.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type InteractionDetails } from 'oidc-provider';
import { escapeHtml, htmlPage } from '../../http/html.js';

export interface TestAccount {
  /** The subject; also what is typed into the provider's login form. */
  sub: string;
  password: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  preferredUsername?: string;
}

export interface TestClient {
  clientId: string;
  /** Omitted: a public client (token_endpoint_auth_method none, PKCE its only proof). */
  clientSecret?: string;
  redirectUri: string;
}

export interface TestOidcProvider {
  /** The issuer identifier, e.g. http://127.0.0.1:41234 (no trailing slash). */
  issuer: string;
  port: number;
  addClient(client: TestClient): void;
  /** How each token request so far authenticated: HTTP Basic, or not (secret in the body, or none). */
  tokenRequests: Array<{ basic: boolean }>;
  stop(): Promise<void>;
}

export interface TestOidcProviderOptions {
  accounts: TestAccount[];
  /** The loopback name the issuer uses ('127.0.0.1' or 'localhost'); it listens on 127.0.0.1. */
  hostname?: string;
  /**
   * Client authentication methods the token endpoint takes (announced in discovery); confidential
   * clients are registered with the first. Default: the provider's, clients on client_secret_basic.
   */
  clientAuthMethods?: string[];
}

const MAX_FORM_BYTES = 8 * 1024;

type Payload = Record<string, unknown> & { uid?: string; grantId?: string; consumed?: number };

/**
 * The provider's storage (sessions, interactions, codes, tokens, grants), in memory and owned by
 * one test provider; the package's own memory adapter is shared by every provider in the process
 * and announces itself on every start.
 */
function memoryAdapter(): (model: string) => object {
  const entries = new Map<string, { payload: Payload; expiresAt: number }>();
  const live = (key: string): Payload | undefined => {
    const entry = entries.get(key);
    if (entry !== undefined && entry.expiresAt <= Date.now()) entries.delete(key);
    return entry !== undefined && entry.expiresAt > Date.now() ? entry.payload : undefined;
  };
  return (model) => ({
    upsert: (id: string, payload: Payload, expiresIn?: number) => {
      const expiresAt = expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000;
      entries.set(`${model}:${id}`, { payload, expiresAt });
      return Promise.resolve();
    },
    find: (id: string) => Promise.resolve(live(`${model}:${id}`)),
    findByUid: (uid: string) =>
      Promise.resolve(
        [...entries.keys()]
          .filter((key) => key.startsWith(`${model}:`))
          .map((key) => live(key))
          .find((payload) => payload?.uid === uid),
      ),
    findByUserCode: () => Promise.resolve(undefined),
    consume: (id: string) => {
      const payload = live(`${model}:${id}`);
      if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000);
      return Promise.resolve();
    },
    destroy: (id: string) => {
      entries.delete(`${model}:${id}`);
      return Promise.resolve();
    },
    // A replayed code revokes everything issued under its grant (RFC 6749 4.1.2).
    revokeByGrantId: (grantId: string) => {
      for (const [key, entry] of entries)
        if (entry.payload.grantId === grantId) entries.delete(key);
      return Promise.resolve();
    },
  });
}

function html(res: ServerResponse, status: number, title: string, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(htmlPage(title, body));
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new Error('form too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function loginPage(res: ServerResponse, uid: string, error?: string): void {
  html(
    res,
    error === undefined ? 200 : 401,
    'Test provider sign-in',
    `${error === undefined ? '' : `<p role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
  <label>Login <input name="login" autocomplete="off" required></label>
  <label>Password <input name="password" type="password" required></label>
  <button type="submit">Sign in</button>
</form>
<p><a href="/interaction/${escapeHtml(uid)}/abort">Cancel</a></p>`,
  );
}

function consentPage(res: ServerResponse, details: InteractionDetails): void {
  const scopes = details.prompt.details.missingOIDCScope ?? [];
  html(
    res,
    200,
    'Allow access?',
    `<p>The client <code>${escapeHtml(String(details.params.client_id))}</code> asks for: ${escapeHtml(scopes.join(' ') || 'the access you gave before')}.</p>
<form method="post" action="/interaction/${escapeHtml(details.uid)}/confirm">
  <button type="submit">Allow</button>
</form>
<p><a href="/interaction/${escapeHtml(details.uid)}/abort">Deny</a></p>`,
  );
}

export async function startTestOidcProvider(
  options: TestOidcProviderOptions,
): Promise<TestOidcProvider> {
  const accounts = new Map(options.accounts.map((a) => [a.sub, a]));
  const clients: TestClient[] = [];
  // One signing key and one cookie key for the provider's whole life, so rebuilding it for a
  // new client does not invalidate what it issued before.
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    format: 'jwk',
  });
  const cookieKey = randomBytes(32).toString('base64url');
  const adapter = memoryAdapter();
  let provider: Provider | undefined;
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;

  const build = (issuer: string): void => {
    provider = new Provider(issuer, {
      clients: clients.map((c) => ({
        client_id: c.clientId,
        ...(c.clientSecret === undefined
          ? { token_endpoint_auth_method: 'none' }
          : {
              client_secret: c.clientSecret,
              // Without one named, the registration default: client_secret_basic.
              ...(options.clientAuthMethods?.[0] === undefined
                ? {}
                : { token_endpoint_auth_method: options.clientAuthMethods[0] }),
            }),
        redirect_uris: [c.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      })),
      jwks: { keys: [{ ...signingKey, kid: 'test-signing-key', use: 'sig', alg: 'RS256' }] },
      cookies: { keys: [cookieKey] },
      adapter,
      ...(options.clientAuthMethods === undefined
        ? {}
        : { clientAuthMethods: [...options.clientAuthMethods, 'none'] }),
      ttl: {
        AccessToken: 600,
        AuthorizationCode: 60,
        Grant: 3600,
        IdToken: 600,
        Interaction: 600,
        Session: 3600,
      },
      // PKCE for every client, confidential ones included (the provider's default asks it
      // only of public clients); the provider accepts only S256.
      pkce: { required: () => true },
      features: { devInteractions: { enabled: false } },
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['name', 'preferred_username'],
      },
      findAccount: (_ctx: unknown, sub: string) => {
        const account = accounts.get(sub);
        if (account === undefined) return undefined;
        return {
          accountId: sub,
          claims: () => ({
            sub,
            ...(account.email === undefined
              ? {}
              : { email: account.email, email_verified: account.emailVerified ?? false }),
            ...(account.name === undefined ? {} : { name: account.name }),
            ...(account.preferredUsername === undefined
              ? {}
              : { preferred_username: account.preferredUsername }),
          }),
        };
      },
    });
    handle = provider.callback();
  };

  const interaction = async (
    req: IncomingMessage,
    res: ServerResponse,
    op: Provider,
    action: string | undefined,
  ): Promise<void> => {
    const details = await op.interactionDetails(req, res);
    if (req.method === 'GET' && action === undefined) {
      if (details.prompt.name === 'login') return loginPage(res, details.uid);
      if (details.prompt.name === 'consent') return consentPage(res, details);
      return html(res, 501, 'Not implemented', `<p>Prompt ${escapeHtml(details.prompt.name)}</p>`);
    }
    if (req.method === 'GET' && action === 'abort') {
      return op.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The person cancelled the sign-in.' },
        { mergeWithLastSubmission: false },
      );
    }
    if (req.method === 'POST' && action === 'login' && details.prompt.name === 'login') {
      const form = await readForm(req);
      const account = accounts.get(form.get('login') ?? '');
      if (account === undefined || account.password !== form.get('password')) {
        return loginPage(res, details.uid, 'Wrong login or password.');
      }
      return op.interactionFinished(
        req,
        res,
        { login: { accountId: account.sub } },
        { mergeWithLastSubmission: false },
      );
    }
    if (req.method === 'POST' && action === 'confirm' && details.prompt.name === 'consent') {
      const accountId = details.session?.accountId;
      if (accountId === undefined) throw new Error('consent without a signed-in account');
      const grant =
        (details.grantId === undefined ? undefined : await op.Grant.find(details.grantId)) ??
        new op.Grant({ accountId, clientId: String(details.params.client_id) });
      const missing = details.prompt.details;
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scopes.join(' '));
      }
      return op.interactionFinished(
        req,
        res,
        { consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: true },
      );
    }
    return html(res, 400, 'Unexpected request', '<p>Start again from the client.</p>');
  };

  const tokenRequests: Array<{ basic: boolean }> = [];
  const server = createServer((req, res) => {
    const op = provider;
    if (op === undefined || handle === undefined) {
      res.statusCode = 503;
      res.end();
      return;
    }
    const path = new URL(req.url ?? '/', 'http://provider.invalid').pathname;
    if (path === '/token' && req.method === 'POST') {
      tokenRequests.push({ basic: /^Basic /i.test(req.headers.authorization ?? '') });
    }
    const match = /^\/interaction\/([\w-]+)(?:\/(login|confirm|abort))?$/.exec(path);
    if (match === null) return handle(req, res);
    interaction(req, res, op, match[2]).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else html(res, 400, 'Sign-in failed', `<p>${escapeHtml(String(err))}</p>`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://${options.hostname ?? '127.0.0.1'}:${port}`;
  build(issuer);

  return {
    issuer,
    port,
    addClient: (client) => {
      clients.push(client);
      build(issuer);
    },
    tokenRequests,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
