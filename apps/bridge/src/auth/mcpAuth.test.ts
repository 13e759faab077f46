// Authenticators and the --no-auth refusal, including through startWithControlPlane, which must
// refuse before anything listens.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { INITIALIZE_REQUEST, startTestBridge } from '../mcp/testing/fixtures.js';
import { assertNoAuthAllowed, noAuthAuthenticator, tokenAuthenticator } from './mcpAuth.js';
import { clientConfigBanner, clientConfigJson } from './clientConfig.js';

describe('tokenAuthenticator', () => {
  const auth = tokenAuthenticator(['first-token-0123456789', 'second-token-0123456789']);
  it('maps each token to its own stable id, and anything else to nothing', () => {
    const a = auth.authenticate('Bearer first-token-0123456789');
    const b = auth.authenticate('Bearer second-token-0123456789');
    expect(a?.tokenId).toMatch(/^tok_[0-9a-f]{16}$/);
    expect(a?.tokenId).not.toBe(b?.tokenId);
    expect(auth.authenticate('Bearer first-token-0123456789')).toEqual(a);
    expect(auth.authenticate('Bearer nope')).toBeUndefined();
    expect(auth.authenticate(undefined)).toBeUndefined();
    expect(a?.tokenId).not.toContain('first-token');
  });
});

describe('--no-auth', () => {
  it('is allowed on loopback only', () => {
    expect(() => assertNoAuthAllowed('127.0.0.1')).not.toThrow();
    expect(() => assertNoAuthAllowed('::1')).not.toThrow();
    expect(() => assertNoAuthAllowed('localhost')).not.toThrow();
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'example.org']) {
      expect(() => assertNoAuthAllowed(host)).toThrow(UsageError);
    }
    expect(() => assertNoAuthAllowed('0.0.0.0')).toThrow(/--no-auth is for local testing only/);
  });

  it('refuses to start a bridge on a non-loopback host', async () => {
    await expect(startTestBridge({ auth: noAuthAuthenticator(), host: '0.0.0.0' })).rejects.toThrow(
      UsageError,
    );
  });

  it('serves without a token on loopback', async () => {
    const bridge = await startTestBridge({ auth: noAuthAuthenticator() });
    try {
      const response = await fetch(bridge.mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(INITIALIZE_REQUEST),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toBeTruthy();
    } finally {
      await bridge.close();
    }
  });
});

describe('client config', () => {
  it('is JSON for a Streamable HTTP client with the Authorization header', () => {
    const parsed = JSON.parse(
      clientConfigJson({ mcpUrl: 'http://127.0.0.1:8080/mcp', token: 'T' }),
    ) as unknown;
    expect(parsed).toEqual({
      mcpServers: {
        'overlay-companion': {
          type: 'http',
          url: 'http://127.0.0.1:8080/mcp',
          headers: { Authorization: 'Bearer T' },
        },
      },
    });
    expect(clientConfigBanner({ mcpUrl: 'http://x/mcp', token: undefined })).toMatch(/OFF/);
  });
});
