// Optional OpenID Connect sign-in (openid-client; authorization code flow with PKCE S256, state
// and nonce), configured by environment variables. This module owns the configuration, the
// provider's discovery (retried after a failure), the flows in progress (in memory, bound to the
// browser by a short-lived cookie, single-use, expiring after 10 minutes) and turning a callback
// into verified claims (ID token, then userinfo for the same subject). Which person those claims
// sign in is decided in oidcPerson.ts.
import {
  allowInsecureRequests,
  authorizationCodeGrant,
  buildAuthorizationUrl,
  calculatePKCECodeChallenge,
  ClientSecretBasic,
  ClientSecretPost,
  Configuration,
  discovery,
  fetchUserInfo,
  None,
  randomNonce,
  randomPKCECodeVerifier,
  randomState,
} from 'openid-client';
import { ConfigError } from '../errors.js';
import type { PersonRecord, Store } from '../store/types.js';
import { isLoopbackHost } from './loopback.js';
import type { BucketLimit } from '../limits/rateLimit.js';
import { matchPerson, type MatchedHow, type OidcClaims } from './oidcPerson.js';
import { randomSecret, secretsEqual } from './secrets.js';

export interface OidcConfig {
  issuer: URL;
  clientId: string;
  clientSecret: string | undefined;
  /** Text of the sign-in button ("Sign in with …"). */
  label: string;
  scopes: string;
  /** Create a member on first sign-in of someone unknown (OC_OIDC_AUTO_CREATE=1). */
  autoCreate: boolean;
}

/** Reads OC_OIDC_*; undefined when OC_OIDC_ISSUER is not set. */
export function oidcConfigFromEnv(env: NodeJS.ProcessEnv): OidcConfig | undefined {
  const issuerText = env.OC_OIDC_ISSUER?.trim();
  if (issuerText === undefined || issuerText === '') return undefined;
  let issuer: URL;
  try {
    issuer = new URL(issuerText);
  } catch {
    throw new ConfigError(
      `OC_OIDC_ISSUER must be a URL such as https://id.example.org/, got "${issuerText}".`,
    );
  }
  if (
    issuer.protocol !== 'https:' &&
    !(issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname))
  ) {
    throw new ConfigError(
      'OC_OIDC_ISSUER must use https (plain http is accepted only for a provider on loopback, for testing).',
    );
  }
  const clientId = env.OC_OIDC_CLIENT_ID?.trim();
  if (clientId === undefined || clientId === '') {
    throw new ConfigError(
      'OC_OIDC_CLIENT_ID is required with OC_OIDC_ISSUER: the client id registered at the provider.',
    );
  }
  const scopes = env.OC_OIDC_SCOPES?.trim() || 'openid profile email';
  if (!scopes.split(/\s+/).includes('openid')) {
    throw new ConfigError(
      `OC_OIDC_SCOPES must include "openid" (without it there is no ID token), got "${scopes}". The default is "openid profile email".`,
    );
  }
  return {
    issuer,
    clientId,
    clientSecret: env.OC_OIDC_CLIENT_SECRET?.trim() || undefined,
    label: env.OC_OIDC_LABEL?.trim() || 'OpenID Connect',
    scopes,
    autoCreate: env.OC_OIDC_AUTO_CREATE === '1',
  };
}

interface Flow {
  browserKey: string;
  codeVerifier: string;
  nonce: string;
  next: string;
  expiresAt: number;
}

const FLOW_TTL_MS = 10 * 60 * 1000;
const MAX_FLOWS = 1000;
/** What a flow cookie we minted looks like (randomSecret(): 32 bytes, base64url). */
const BROWSER_KEY = /^[A-Za-z0-9_-]{43}$/;

export type OidcOutcome =
  | { ok: true; person: PersonRecord; next: string; how: MatchedHow }
  | { ok: false; message: string };

const START_AGAIN = 'Start again from the sign-in page.';

function claimString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The claims we use, from the ID token overlaid with userinfo (same subject, checked). */
function claimsOf(source: Record<string, unknown> & { sub: string }): OidcClaims {
  const email = claimString(source.email);
  const name = claimString(source.name);
  const preferredUsername = claimString(source.preferred_username);
  return {
    sub: source.sub,
    // Some providers send the boolean as a string.
    emailVerified: source.email_verified === true || source.email_verified === 'true',
    ...(email === undefined ? {} : { email }),
    ...(name === undefined ? {} : { name }),
    ...(preferredUsername === undefined ? {} : { preferredUsername }),
  };
}

/**
 * Why openid-client refused, in a line: the provider's OAuth error (invalid_grant, …) or the
 * check that failed ('unexpected ID Token "nonce" claim value'). Never values: no tokens, codes
 * or nonces appear in these texts.
 */
function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err).slice(0, 200);
  const oauthError = (err as { error?: unknown; error_description?: unknown }).error;
  if (typeof oauthError === 'string') {
    const description = (err as { error_description?: unknown }).error_description;
    const text = typeof description === 'string' ? `${oauthError}: ${description}` : oauthError;
    return `the provider answered ${text}`.slice(0, 300);
  }
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`.slice(0, 300);
}

/**
 * Sign-ins one address may start: each flow holds a slot in a bounded table, so a flood from one
 * source must not push out other people's sign-ins in progress.
 */
export const OIDC_START_LIMIT: BucketLimit = { ratePerSecond: 0.5, burst: 10 };

export class OidcSignIn {
  private configuration: Promise<Configuration> | undefined;
  private readonly flows = new Map<string, Flow>();

  constructor(
    readonly config: OidcConfig,
    private readonly store: Store,
    /** The callback URL the provider redirects to (registered there). */
    private readonly redirectUri: () => string,
    private readonly now: () => number = Date.now,
    /** Flows one address may start (a burst, then a rate); see oidcRoutes.ts. */
    readonly startLimit: BucketLimit = OIDC_START_LIMIT,
  ) {}

  get label(): string {
    return this.config.label;
  }

  /**
   * Starts a flow: where to send the browser, and the cookie value that binds it. A browser that
   * already holds a flow cookie keeps its value, so sign-ins started in two tabs both finish.
   */
  async start(next: string, presentedKey?: string): Promise<{ url: string; browserKey: string }> {
    const configuration = await this.discover();
    this.sweep();
    const state = randomState();
    const flow: Flow = {
      browserKey:
        presentedKey !== undefined && BROWSER_KEY.test(presentedKey)
          ? presentedKey
          : randomSecret(),
      codeVerifier: randomPKCECodeVerifier(),
      nonce: randomNonce(),
      next,
      expiresAt: this.now() + FLOW_TTL_MS,
    };
    this.flows.set(state, flow);
    const url = buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri(),
      scope: this.config.scopes,
      code_challenge: await calculatePKCECodeChallenge(flow.codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce: flow.nonce,
    });
    return { url: url.toString(), browserKey: flow.browserKey };
  }

  /**
   * Finishes a flow from the callback's query string; the browser must present the cookie it
   * started with. Each flow is used up by its first callback, whatever the outcome.
   */
  async finish(query: URLSearchParams, browserKey: string | undefined): Promise<OidcOutcome> {
    const state = query.get('state') ?? '';
    const flow = this.flows.get(state);
    if (flow === undefined || flow.expiresAt <= this.now()) {
      if (flow !== undefined) this.flows.delete(state);
      return {
        ok: false,
        message: `This sign-in attempt expired or was already used. ${START_AGAIN}`,
      };
    }
    this.flows.delete(state);
    if (browserKey === undefined || !secretsEqual(browserKey, flow.browserKey)) {
      return {
        ok: false,
        message: `This sign-in was started in another browser (or this browser blocks cookies for this site). ${START_AGAIN}`,
      };
    }
    const providerError = query.get('error');
    if (providerError !== null) {
      return {
        ok: false,
        message:
          providerError === 'access_denied'
            ? `The sign-in was cancelled at the identity provider. ${START_AGAIN}`
            : `The identity provider refused the sign-in (${providerError.slice(0, 100)}). ${START_AGAIN}`,
      };
    }
    // The token request must name the redirect_uri exactly as registered and as sent in
    // start(): the registered callback URL, not the URL this request arrived on (behind a
    // proxy, that is an internal address).
    const callbackUrl = new URL(this.redirectUri());
    callbackUrl.search = query.toString();
    let claims: OidcClaims;
    let issuer: string;
    try {
      const configuration = await this.discover();
      const tokens = await authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (idClaims === undefined) throw new Error('the answer carried no ID token');
      // With the authorization code flow, providers return the email and profile claims from
      // the userinfo endpoint, not in the ID token (OpenID Connect Core 5.4).
      const userinfo =
        configuration.serverMetadata().userinfo_endpoint === undefined
          ? {}
          : await fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
      claims = claimsOf({ ...idClaims, ...userinfo, sub: idClaims.sub });
      // The provider's own spelling of its identifier (checked against discovery by
      // openid-client), so a trailing slash in OC_OIDC_ISSUER cannot split one identity in two.
      issuer = idClaims.iss;
    } catch (err) {
      return {
        ok: false,
        message: `The identity provider's answer could not be verified (${describeError(err)}). ${START_AGAIN}`,
      };
    }
    const match = await matchPerson(this.store, issuer, claims, this.config.autoCreate);
    return match.ok ? { ok: true, person: match.person, next: flow.next, how: match.how } : match;
  }

  private discover(): Promise<Configuration> {
    this.configuration ??= this.discoverNow();
    // A provider that was down must be asked again next time, not remembered as down.
    this.configuration.catch(() => (this.configuration = undefined));
    return this.configuration;
  }

  private async discoverNow(): Promise<Configuration> {
    const { issuer, clientId, clientSecret } = this.config;
    const insecure = issuer.protocol === 'http:';
    // client_secret_basic is the registration default (OpenID Connect Dynamic Client
    // Registration 2), so a provider set up without naming a method expects it; a provider that
    // announces only client_secret_post gets that. Public clients (no secret) prove themselves
    // by PKCE alone.
    let configuration = await discovery(
      issuer,
      clientId,
      clientSecret,
      clientSecret === undefined ? None() : ClientSecretBasic(clientSecret),
      insecure ? { execute: [allowInsecureRequests] } : undefined,
    );
    const methods = configuration.serverMetadata().token_endpoint_auth_methods_supported;
    if (
      clientSecret !== undefined &&
      methods !== undefined &&
      !methods.includes('client_secret_basic') &&
      methods.includes('client_secret_post')
    ) {
      configuration = new Configuration(
        configuration.serverMetadata(),
        clientId,
        clientSecret,
        ClientSecretPost(clientSecret),
      );
      if (insecure) allowInsecureRequests(configuration);
    }
    return configuration;
  }

  private sweep(): void {
    const now = this.now();
    for (const [state, flow] of this.flows) if (flow.expiresAt <= now) this.flows.delete(state);
    while (this.flows.size >= MAX_FLOWS) {
      const oldest = this.flows.keys().next().value;
      if (oldest === undefined) break;
      this.flows.delete(oldest);
    }
  }
}
