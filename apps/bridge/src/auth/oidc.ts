// Optional OpenID Connect sign-in (openid-client; authorization code flow with PKCE, state and
// nonce), configured by environment variables. This module owns the configuration, the flows in
// progress (in memory, bound to the browser by a short-lived cookie, expiring after 10 minutes)
// and which person a provider's answer signs in: the person already linked to that issuer and
// subject; else the one whose username is the provider's *verified* email (linked from then
// on); else, only when OC_OIDC_AUTO_CREATE=1, a new member. Disabled people are refused.
import {
  allowInsecureRequests,
  authorizationCodeGrant,
  buildAuthorizationUrl,
  calculatePKCECodeChallenge,
  discovery,
  None,
  randomNonce,
  randomPKCECodeVerifier,
  randomState,
  type Configuration,
} from 'openid-client';
import { ConfigError } from '../errors.js';
import type { PersonRecord, Store } from '../store/types.js';
import { isLoopbackHost } from './loopback.js';
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
  return {
    issuer,
    clientId,
    clientSecret: env.OC_OIDC_CLIENT_SECRET?.trim() || undefined,
    label: env.OC_OIDC_LABEL?.trim() || 'OpenID Connect',
    scopes: env.OC_OIDC_SCOPES?.trim() || 'openid profile email',
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

export interface OidcClaims {
  sub: string;
  email?: string;
  emailVerified: boolean;
  name?: string;
  preferredUsername?: string;
}

export type OidcOutcome =
  { ok: true; person: PersonRecord; next: string } | { ok: false; message: string };

export class OidcSignIn {
  private configuration: Promise<Configuration> | undefined;
  private readonly flows = new Map<string, Flow>();

  constructor(
    readonly config: OidcConfig,
    private readonly store: Store,
    /** The callback URL the provider redirects to (registered there). */
    private readonly redirectUri: () => string,
    private readonly now: () => number = Date.now,
  ) {}

  get label(): string {
    return this.config.label;
  }

  /** Starts a flow: where to send the browser, and the cookie value that binds it. */
  async start(next: string): Promise<{ url: string; browserKey: string }> {
    const configuration = await this.discover();
    this.sweep();
    const state = randomState();
    const flow: Flow = {
      browserKey: randomSecret(),
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

  /** Finishes a flow from the callback URL; the browser must present the cookie it started with. */
  async finish(callbackUrl: URL, browserKey: string | undefined): Promise<OidcOutcome> {
    const state = callbackUrl.searchParams.get('state') ?? '';
    const flow = this.flows.get(state);
    this.flows.delete(state);
    if (flow === undefined || flow.expiresAt <= this.now()) {
      return {
        ok: false,
        message:
          'This sign-in attempt expired or was already used. Start again from the sign-in page.',
      };
    }
    if (browserKey === undefined || !secretsEqual(browserKey, flow.browserKey)) {
      return {
        ok: false,
        message: 'This sign-in was started in another browser. Start again from the sign-in page.',
      };
    }
    const providerError = callbackUrl.searchParams.get('error');
    if (providerError !== null) {
      return {
        ok: false,
        message: `The identity provider refused the sign-in (${providerError.slice(0, 100)}).`,
      };
    }
    let claims: OidcClaims;
    try {
      const tokens = await authorizationCodeGrant(await this.discover(), callbackUrl, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const c = tokens.claims();
      if (c === undefined) throw new Error('no ID token');
      claims = {
        sub: c.sub,
        emailVerified: c.email_verified === true,
        ...(typeof c.email === 'string' ? { email: c.email } : {}),
        ...(typeof c.name === 'string' ? { name: c.name } : {}),
        ...(typeof c.preferred_username === 'string'
          ? { preferredUsername: c.preferred_username }
          : {}),
      };
    } catch (err) {
      return {
        ok: false,
        message: `The identity provider's answer could not be verified (${err instanceof Error ? err.message : String(err)}). Start again from the sign-in page.`,
      };
    }
    return this.personFor(claims, flow.next);
  }

  private async personFor(claims: OidcClaims, next: string): Promise<OidcOutcome> {
    const issuer = this.config.issuer.href;
    let person = await this.store.people.byOidc(issuer, claims.sub);
    if (person === undefined && claims.emailVerified && claims.email !== undefined) {
      const byEmail = await this.store.people.byUsername(claims.email);
      if (byEmail !== undefined && byEmail.oidcSubject === null) {
        person = await this.store.people.update(byEmail.id, {
          oidcIssuer: issuer,
          oidcSubject: claims.sub,
        });
      }
    }
    if (person === undefined && this.config.autoCreate) {
      person = await this.store.people.add({
        username:
          (claims.emailVerified ? claims.email : undefined) ??
          claims.preferredUsername ??
          `oidc-${claims.sub}`,
        displayName: claims.name ?? claims.preferredUsername ?? claims.email ?? claims.sub,
        passwordHash: null,
        role: 'member',
        oidcIssuer: issuer,
        oidcSubject: claims.sub,
      });
    }
    if (person === undefined) {
      return {
        ok: false,
        message:
          'Your identity provider account is not known here. Ask an admin to add you with your email address as the username.',
      };
    }
    if (person.disabled) return { ok: false, message: 'This account is disabled. Ask an admin.' };
    return { ok: true, person, next };
  }

  private discover(): Promise<Configuration> {
    this.configuration ??= discovery(
      this.config.issuer,
      this.config.clientId,
      this.config.clientSecret,
      this.config.clientSecret === undefined ? None() : undefined,
      this.config.issuer.protocol === 'http:' ? { execute: [allowInsecureRequests] } : undefined,
    );
    // A provider that was down must be asked again next time, not remembered as down.
    this.configuration.catch(() => (this.configuration = undefined));
    return this.configuration;
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
