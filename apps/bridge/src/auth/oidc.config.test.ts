// OC_OIDC_* as `serve` reads them (oidcConfigFromEnv): off without an issuer, defaults for the
// label, scopes and auto-create, and refusals that name the variable and the fix — an issuer
// that is not a URL, plain http off loopback, a missing client id, scopes without openid.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { oidcConfigFromEnv } from './oidc.js';

describe('oidcConfigFromEnv', () => {
  it('is off without OC_OIDC_ISSUER', () => {
    expect(oidcConfigFromEnv({})).toBeUndefined();
    expect(oidcConfigFromEnv({ OC_OIDC_ISSUER: '  ', OC_OIDC_CLIENT_ID: 'x' })).toBeUndefined();
  });

  it('reads every variable, with defaults', () => {
    expect(
      oidcConfigFromEnv({
        OC_OIDC_ISSUER: 'https://id.example.org/realms/a',
        OC_OIDC_CLIENT_ID: 'oc',
      }),
    ).toEqual({
      issuer: new URL('https://id.example.org/realms/a'),
      clientId: 'oc',
      clientSecret: undefined,
      label: 'OpenID Connect',
      scopes: 'openid profile email',
      autoCreate: false,
    });
    expect(
      oidcConfigFromEnv({
        OC_OIDC_ISSUER: 'http://127.0.0.1:9000',
        OC_OIDC_CLIENT_ID: 'oc',
        OC_OIDC_CLIENT_SECRET: 's3cret-s3cret',
        OC_OIDC_LABEL: 'Acme SSO',
        OC_OIDC_SCOPES: 'openid email',
        OC_OIDC_AUTO_CREATE: '1',
      }),
    ).toMatchObject({
      clientSecret: 's3cret-s3cret',
      label: 'Acme SSO',
      scopes: 'openid email',
      autoCreate: true,
    });
  });

  it('refuses what cannot work, naming the variable', () => {
    const attempt = (env: NodeJS.ProcessEnv) => () => oidcConfigFromEnv(env);
    expect(attempt({ OC_OIDC_ISSUER: 'not a url', OC_OIDC_CLIENT_ID: 'oc' })).toThrow(
      /OC_OIDC_ISSUER must be a URL/,
    );
    expect(attempt({ OC_OIDC_ISSUER: 'http://id.example.org', OC_OIDC_CLIENT_ID: 'oc' })).toThrow(
      /OC_OIDC_ISSUER must use https/,
    );
    expect(
      attempt({
        OC_OIDC_ISSUER: 'https://id.example.org',
        OC_OIDC_CLIENT_ID: 'oc',
        OC_OIDC_SCOPES: 'profile email',
      }),
    ).toThrow(/OC_OIDC_SCOPES must include "openid"/);
    expect(attempt({ OC_OIDC_ISSUER: 'https://id.example.org' })).toThrow(ConfigError);
    expect(attempt({ OC_OIDC_ISSUER: 'https://id.example.org' })).toThrow(
      /OC_OIDC_CLIENT_ID is required/,
    );
  });
});
