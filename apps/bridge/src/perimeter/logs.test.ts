// What a local process that reads the bridge's log learns: nothing that lets it in, and nothing
// the person typed. A real bridge logs at trace level into memory through one whole session of
// use — first-run setup with the one-time code, a failed and a good sign-in, a token made and
// used by a real MCP client, OC_MCP_TOKEN used, a password changed, another person added and
// signed in, viewer and tunnel sockets opened with tickets, text typed and a clipboard set and
// read through a SCRIPTED VIEWER (a test ws client speaking the viewer protocol), key presses
// read, malformed frames that carry secrets, sign-out — and then no password, token, setup
// code, cookie value, CSRF token, ticket, typed text or clipboard text may appear in it. The
// audit log keeps no secret either, and keeps typed and clipboard text out unless opted in.
import { randomBytes } from 'node:crypto';
import { API, type Me } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../mcp/testing/calls.js';
import {
  TOKEN,
  OTHER_TOKEN,
  connectClient,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { signIn, sessionFromCookie, type BrowserSession } from '../testing/browserSession.js';
import { ADMIN_PASSWORD } from '../testing/testAccess.js';
import { registerSecret } from '../testing/testLogs.js';
import { dumpDatabase } from './testing/database.js';
import { browserHeaders, rawRequest, tryUpgrade, tunnelPath } from './testing/http.js';
import { memoryLogger, type MemoryLog } from './testing/logs.js';
import { addPerson, createToken } from './testing/people.js';
import { settle } from './testing/viewers.js';

/** Unguessable, so finding one in a log can only mean it leaked there. */
const unique = (label: string): string => `${label}-${randomBytes(12).toString('hex')}`;

const ENV_TOKEN = unique('env-token');
const ROOT_PASSWORD = unique('root-password');
const NEW_PASSWORD = unique('new-password');
const WRONG_PASSWORD = unique('wrong-password');
const WRONG_TOKEN = unique('oc_wrong-token');
const TYPED_TEXT = unique('typed text');
const CLIPBOARD_TEXT = unique('clipboard set');
const CLIPBOARD_READ = unique('clipboard read');
/** Short enough that a parse error quoting the start of a frame would quote all of it. */
const SHORT_TYPED = randomBytes(4).toString('hex');

let log: MemoryLog;
let bridge: TestBridge;
/** Every secret the session below handled, by what it is. */
const secrets = new Map<string, string>([
  ['the fixture admin password', ADMIN_PASSWORD],
  ['the fixture token', TOKEN],
  ['the other fixture token', OTHER_TOKEN],
  ['OC_MCP_TOKEN', ENV_TOKEN],
  ['the admin password', ROOT_PASSWORD],
  ['the changed password', NEW_PASSWORD],
  ['a wrong password', WRONG_PASSWORD],
  ['a wrong token', WRONG_TOKEN],
  ['typed text', TYPED_TEXT],
  ['clipboard text set', CLIPBOARD_TEXT],
  ['clipboard text read', CLIPBOARD_READ],
  ['short typed text in a malformed frame', SHORT_TYPED],
]);
/** For the run's log scan too (long ones only: short text may turn up by chance). */
const registerLong = (...values: string[]): void =>
  registerSecret(...values.filter((v) => v.length >= 16));
const remember = (what: string, secret: string): string => {
  registerLong(secret);
  secrets.set(`${what} (${secrets.size})`, secret);
  return secret;
};
const rememberSession = (who: string, session: BrowserSession): BrowserSession => {
  remember(`${who}'s cookie`, session.cookie.slice(session.cookie.indexOf('=') + 1));
  remember(`${who}'s CSRF token`, session.csrf);
  return session;
};

beforeAll(async () => {
  registerLong(...secrets.values());
  log = memoryLogger();
  bridge = await startTestBridge({
    logger: log.logger,
    access: { envToken: ENV_TOKEN },
  });
  rememberSession('the fixture admin', bridge.session);
  await useTheBridge();
});

afterAll(async () => {
  await bridge.close();
});

/** The whole session of use; every secret it touches is remembered. */
async function useTheBridge(): Promise<void> {
  // First run: no active admin, so the one-time setup code creates one.
  await bridge.access.store.people.update(bridge.admin.id, { disabled: true });
  const code = remember('the setup code', bridge.access.setup.issue());
  const setup = await rawRequest(bridge.url, API.setup, {
    method: 'POST',
    headers: browserHeaders(bridge.url, undefined),
    body: JSON.stringify({ code, username: 'root', password: ROOT_PASSWORD }),
  });
  expect(setup.status).toBe(200);
  const setupCookie = /^[^;]+/.exec(String(setup.headers['set-cookie']?.[0]))?.[0] ?? '';
  rememberSession(
    'the setup session',
    sessionFromCookie(bridge.url, setupCookie, JSON.parse(setup.body) as Me),
  );

  await expect(signIn(bridge.url, 'root', WRONG_PASSWORD)).rejects.toThrow(/401/);
  let root = rememberSession('root', await signIn(bridge.url, 'root', ROOT_PASSWORD));
  const changed = await root.request(API.myPassword, {
    method: 'PUT',
    body: { current_password: ROOT_PASSWORD, new_password: NEW_PASSWORD },
  });
  expect(changed.status).toBe(200);
  root = rememberSession('root again', await signIn(bridge.url, 'root', NEW_PASSWORD));
  const allowed = await root.request(API.myPermissions, {
    method: 'PUT',
    body: { read_key_events: true, clipboard_read: true },
  });
  expect(allowed.status).toBe(200);
  const bob = await addPerson(root, 'bob', { grant: 'view' });
  remember("bob's password", bob.password);
  rememberSession('bob', bob.session);

  const token = await createToken(root, 'logged client');
  remember('the token made on /config', token.secret);

  // Sockets, each with a ticket of its own.
  const viewer = await ScriptedViewer.connectWithTicket(
    bridge.url,
    remember('a viewer ticket', await root.ticket('viewer')),
  );
  const tunnelTicket = remember('a tunnel ticket', await root.ticket('tunnel'));
  expect(
    (await tryUpgrade(bridge.url, tunnelPath(tunnelTicket), { protocol: 'guacamole' })).status,
  ).toBe(101);
  expect(
    (await tryUpgrade(bridge.url, tunnelPath(tunnelTicket), { protocol: 'guacamole' })).status,
  ).toBe(401);
  remember('an unused ticket', await bob.session.ticket('viewer'));
  // root is an admin, not the desktop's owner: it takes the charge so its AI may act there.
  viewer.send({ type: 'charge', action: 'take' });
  await viewer.waitFor((m) => m.type === 'hello' && m.role === 'control');

  viewer
    .on('type_text', { result: { success: true, typed_length: TYPED_TEXT.length } })
    .on('set_clipboard', { result: { ok: true } })
    .on('get_clipboard', { result: { text: CLIPBOARD_READ, available: true } });
  const { client } = await connectClient(bridge, { token: token.secret });
  try {
    const typed = await callTool(client, 'type_text', { text: TYPED_TEXT });
    expect(typed.isError, JSON.stringify(typed.structuredContent)).toBeFalsy();
    expect((await callTool(client, 'set_clipboard', { text: CLIPBOARD_TEXT })).isError).toBeFalsy();
    expect((await callTool(client, 'get_clipboard', {})).isError).toBeFalsy();
    const subscribed = await callTool(client, 'subscribe_events', { events: ['key_press'] });
    const id = (subscribed.structuredContent as { subscription_id: string }).subscription_id;
    await waitUntil(() =>
      viewer.received.some((m) => m.type === 'event_interest' && m.events.includes('key_press')),
    );
    for (const [i, key] of [...TYPED_TEXT.slice(0, 8)].entries()) {
      viewer.send({
        type: 'event',
        event: {
          type: 'key_press',
          at: Date.now() + i * 1000,
          data: { key, keysym: key.charCodeAt(0) },
        },
      });
    }
    // Malformed and misdirected frames that carry secrets: the bridge logs that they were bad.
    viewer.send(`not json ${TYPED_TEXT}`);
    viewer.send(`x${SHORT_TYPED}`);
    viewer.send({ type: 'mode_set', mode: CLIPBOARD_TEXT });
    viewer.send({ type: 'tool_result', id: 'call_1_ffff', result: { text: CLIPBOARD_TEXT } });
    viewer.send({
      type: 'event',
      event: { type: 'key_press', at: Date.now(), data: { key: TYPED_TEXT, keysym: 1 } },
    });
    await settle(viewer);
    expect((await callTool(client, 'get_events', { subscription_id: id })).isError).toBeFalsy();
  } finally {
    await client.close();
  }
  const { client: envClient } = await connectClient(bridge, { token: ENV_TOKEN });
  expect((await envClient.listTools()).tools.length).toBeGreaterThan(0);
  await envClient.close();
  const wrong = await rawRequest(bridge.url, '/mcp', {
    method: 'POST',
    headers: { Authorization: `Bearer ${WRONG_TOKEN}`, 'Content-Type': 'application/json' },
    body: '{}',
  });
  expect(wrong.status).toBe(401);

  expect((await root.request(API.signOut, { body: {} })).status).toBe(200);
  await waitUntil(() => viewer.closed, 5000);
  await bridge.access.audit.flush();
}

describe('what the logs give away', () => {
  it('holds no password, token, setup code, cookie, CSRF token, ticket, typed or clipboard text', () => {
    const text = log.text();
    // The log did see the session: otherwise finding nothing would prove nothing.
    for (const line of [
      'MCP session opened',
      'viewer joined',
      'invalid viewer message',
      'tunnel',
      'closed the sockets of ended sign-in sessions',
    ]) {
      expect(text).toContain(line);
    }
    const leaked = [...secrets].filter(([, secret]) => text.includes(secret)).map(([what]) => what);
    expect(leaked).toEqual([]);
  });

  it('leaves no secret in the audit log, and keeps typed and clipboard text out of it', () => {
    const stored = JSON.stringify(dumpDatabase(bridge.dataDir).audit_log);
    expect(stored).toContain('type_text');
    expect(stored).toContain('set_clipboard');
    const leaked = [...secrets]
      .filter(([, secret]) => stored.includes(secret))
      .map(([what]) => what);
    expect(leaked).toEqual([]);
  });
});
