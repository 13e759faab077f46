// API tokens for MCP clients (/api/tokens): a person lists, creates and revokes their own, each
// for all the desktops the person may use or for the ones it names. The secret is in the create
// answer only; the store keeps its hash. Revoking ends the token's MCP sessions at once, so its
// very next call is refused.
import { randomBytes } from 'node:crypto';
import { API, CreateTokenRequest, type CreatedToken } from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import { generateApiToken, tokenHint } from '../auth/apiTokens.js';
import { sha256Hex } from '../auth/secrets.js';
import { tokenSocketKey } from '../auth/socketRegistry.js';
import { accessOf } from '../desktops/desktopAccess.js';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import type { ApiDeps } from './deps.js';
import { tokenView } from './views.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Tokens one person may hold (revoked ones included); a loop creating tokens hits this. */
export const MAX_TOKENS_PER_PERSON = 200;

export function mountTokenRoutes(app: Hono<BridgeEnv>, deps: ApiDeps): void {
  const { access } = deps;
  const store = access.store;

  app.get(API.tokens, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const tokens = await store.tokens.listForPerson(signedIn.person.id);
    c.header('Cache-Control', 'no-store');
    return c.json({ tokens: tokens.map(tokenView) });
  });

  app.post(API.tokens, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const body = await parseJsonBody(c, CreateTokenRequest);
    if (!body.ok) return body.response;
    const person = signedIn.person;
    if ((await store.tokens.listForPerson(person.id)).length >= MAX_TOKENS_PER_PERSON) {
      return apiError(
        c,
        409,
        `You have ${MAX_TOKENS_PER_PERSON} tokens; revoke ones you no longer use first.`,
      );
    }
    // Each desktop named must be one the person may use (own, granted, or any as an admin); one
    // that is not answers like a missing one, so ids of others' desktops cannot be probed.
    let desktopIds: string[] | null = null;
    if (body.value.desktops !== undefined && body.value.desktops !== null) {
      desktopIds = [...new Set(body.value.desktops)];
      const mine = await store.desktops.grantsForPerson(person.id);
      for (const id of desktopIds) {
        const desktop = await store.desktops.byId(id);
        if (desktop === undefined || accessOf(person, desktop, mine) === null) {
          return apiError(
            c,
            400,
            `There is no desktop "${id}" you may use: pick desktops from the list on /desktops.`,
            { field: 'desktops' },
          );
        }
      }
    }
    const secret = generateApiToken();
    const now = Date.now();
    const days = body.value.expires_in_days;
    const record = await store.tokens.create({
      id: `tok_${randomBytes(9).toString('base64url')}`,
      personId: person.id,
      name: body.value.name,
      tokenHash: sha256Hex(secret),
      hint: tokenHint(secret),
      createdAt: now,
      expiresAt: days === undefined || days === null ? null : now + days * DAY_MS,
      desktopIds,
    });
    access.audit.record({
      kind: 'token_created',
      actor: 'person',
      personId: person.id,
      personName: person.displayName,
      tokenId: record.id,
      tokenName: record.name,
      outcome: 'ok',
      detail: `${
        record.expiresAt === null
          ? 'no expiry'
          : `expires ${new Date(record.expiresAt).toISOString()}`
      }; ${desktopIds === null ? 'all desktops' : `desktops ${desktopIds.join(', ')}`}`,
    });
    const answer: CreatedToken = { token: tokenView(record), secret };
    c.header('Cache-Control', 'no-store');
    return c.json(answer, 201);
  });

  app.delete(`${API.tokens}/:id`, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const id = c.req.param('id');
    const person = signedIn.person;
    const token = await store.tokens.byId(id);
    // Another person's token answers like a missing one.
    if (token === undefined || token.personId !== person.id) {
      return apiError(c, 404, 'No such token of yours; reload the list.');
    }
    await store.tokens.revoke(id, person.id, Date.now());
    await access.tokens.invalidate({ tokenId: id });
    const ended = await deps.endMcpSessions({ tokenId: id }, 'token revoked');
    // Programs reading /ws/overlays with this token lose it at once too.
    access.sockets.closeSessions([tokenSocketKey(id)], 'The API token was revoked.');
    access.audit.record({
      kind: 'token_revoked',
      actor: 'person',
      personId: person.id,
      personName: person.displayName,
      tokenId: id,
      tokenName: token.name,
      outcome: 'ok',
      detail: `${ended} MCP session(s) ended`,
    });
    return c.json({ ok: true });
  });
}
