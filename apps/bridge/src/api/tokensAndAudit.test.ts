// API tokens and the audit log over the real HTTP API and a real MCP client: a token made on
// /config works at once and is shown once; revoking it refuses its very next call and ends its
// sessions; every tool call is written to the audit log with who, what, the decision, who
// approved and the outcome — typed text redacted unless the person keeps it, screenshots kept
// only when they choose —, filterable, paged and exportable as JSON lines; retention purges.
import {
  API,
  DEFAULT_MEMBER_RUNNING_LOCAL_DESKTOPS,
  type AuditPage,
  type CreatedToken,
  type TokenView,
} from '@overlay-companion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_AUDIT_QUEUE } from '../audit/auditQueue.js';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import {
  TINY_PNG_BASE64,
  connectClient,
  screenshotResult,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/**
 * The audit's write-behind waits far longer than any test here, so every read below sees an
 * entry only because the audit routes write what was recorded before they read (a person who
 * just changed something sees its entry at once).
 */
const SLOW_WRITE_BEHIND = { ...DEFAULT_AUDIT_QUEUE, gatherMs: 600_000 };

async function bridge(mode: 'autopilot' | 'assist' = 'autopilot'): Promise<TestBridge> {
  const b = await startTestBridge({ initialMode: mode, access: { auditQueue: SLOW_WRITE_BEHIND } });
  closers.push(() => b.close());
  return b;
}

async function createToken(b: TestBridge, name: string, days?: number): Promise<CreatedToken> {
  const res = await b.session.request(API.tokens, {
    body: days === undefined ? { name } : { name, expires_in_days: days },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as CreatedToken;
}

async function audit(b: TestBridge, query = ''): Promise<AuditPage> {
  const res = await b.session.request(`${API.audit}${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as AuditPage;
}

describe('API tokens', () => {
  it('shows the secret once, lists only a hint, works for MCP, and a revoke refuses the next call', async () => {
    const b = await bridge();
    const made = await createToken(b, 'Claude on my laptop', 30);
    expect(made.secret).toMatch(/^oc_[A-Za-z0-9_-]{43}$/);
    expect(made.token.expires_at).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    const listed = (await (await b.session.request(API.tokens)).json()) as { tokens: TokenView[] };
    const text = JSON.stringify(listed);
    expect(text).not.toContain(made.secret);
    expect(listed.tokens.find((t) => t.id === made.token.id)?.hint).toBe(
      `${made.secret.slice(0, 7)}…`,
    );

    const viewer = await ScriptedViewer.connect(b);
    viewer.on('clear_overlays', { result: { cleared: 0 } });
    const { client } = await connectClient(b, { token: made.secret });
    closers.push(() => client.close());
    expect((await callTool(client, 'clear_overlays')).isError).toBeFalsy();
    expect(
      (await b.session.request(`${API.tokens}/${made.token.id}`, { method: 'DELETE' })).status,
    ).toBe(200);
    await expect(callTool(client, 'clear_overlays')).rejects.toThrow();
    const fresh = await fetch(b.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${made.secret}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(fresh.status).toBe(401);
    expect(JSON.stringify(await fresh.json())).toMatch(/revoked/);
    await viewer.close();
  });
});

describe('the audit log', () => {
  it('records every tool call: who, token, client, tool, summary, decision, approver, outcome, duration', async () => {
    const b = await bridge('assist');
    const viewer = await ScriptedViewer.connect(b);
    viewer.on('type_text', { result: { success: true, typed_length: 6 } });
    viewer.on('click_at', { result: { success: true, was_confirmed: true } });
    const { client } = await connectClient(b);
    closers.push(() => client.close());
    await callTool(client, 'type_text', { text: 's3cret' });
    await callTool(client, 'click_at', { x: 3, y: 4 });
    expect(errorOf(await callTool(client, 'get_clipboard')).kind).toBe('permission_denied');

    const page = await audit(b, '?kind=tool_call');
    const byTool = new Map(page.entries.map((e) => [e.tool, e]));
    const typed = byTool.get('type_text');
    expect(typed).toMatchObject({
      actor: 'ai',
      person_id: b.admin.id,
      person_name: 'Ada Admin',
      token_name: 'test token',
      client_name: 'bridge-test',
      decision: 'confirm',
      approved_by: 'Ada Admin',
      outcome: 'ok',
    });
    expect(typed?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(typed?.summary).toContain('[redacted: 6 characters]');
    expect(JSON.stringify(page)).not.toContain('s3cret');
    expect(byTool.get('click_at')?.summary).toContain('"x":3');
    expect(byTool.get('get_clipboard')).toMatchObject({
      decision: 'deny',
      outcome: 'permission_denied',
      approved_by: null,
    });
    await viewer.close();
  });

  it('keeps typed text and screenshots only when the person chooses to', async () => {
    const b = await bridge();
    const viewer = await ScriptedViewer.connect(b);
    viewer.on('type_text', { result: { success: true, typed_length: 5 } });
    viewer.on('take_screenshot', { result: screenshotResult() });
    const { client } = await connectClient(b);
    closers.push(() => client.close());
    await callTool(client, 'take_screenshot');
    expect((await audit(b, '?tool=take_screenshot')).entries[0]?.has_screenshot).toBe(false);

    await b.session.request(API.myPermissions, {
      method: 'PUT',
      body: { audit_typed_text: true, audit_screenshots: true },
    });
    await callTool(client, 'type_text', { text: 'hello' });
    await callTool(client, 'take_screenshot');
    expect((await audit(b, '?tool=type_text')).entries[0]?.summary).toContain('"text":"hello"');
    const shot = (await audit(b, '?tool=take_screenshot')).entries[0];
    expect(shot?.has_screenshot).toBe(true);
    const image = await b.session.request(`${API.audit}/${shot?.id}/screenshot`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).toString('base64')).toBe(TINY_PNG_BASE64);
    await viewer.close();
  });

  it('records sign-ins, token changes, mode changes and Stop; filters, pages and exports them', async () => {
    const b = await bridge();
    const made = await createToken(b, 'exported');
    await b.session.request(`${API.tokens}/${made.token.id}`, { method: 'DELETE' });
    b.adminPlane.mode.set('passive', undefined, 'person');
    b.adminPlane.hub.stop();

    const kinds = (await audit(b)).entries.map((e) => e.kind);
    for (const kind of ['sign_in', 'token_created', 'token_revoked', 'mode_change', 'stop']) {
      expect(kinds, kind).toContain(kind);
    }
    const first = await audit(b, '?limit=2');
    expect(first.entries).toHaveLength(2);
    expect(first.next_before).toBe(first.entries[1]?.id);
    const second = await audit(b, `?limit=2&before=${first.next_before}`);
    expect(second.entries[0]?.id).toBeLessThan(first.entries[1]?.id ?? 0);

    const exported = await b.session.request(`${API.auditExport}?kind=token_created`);
    expect(exported.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    expect(exported.headers.get('content-disposition')).toMatch(/attachment/);
    const lines = (await exported.text()).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual(['token_created']);
    expect(lines[0]).not.toContain(made.secret);

    expect((await b.session.request(`${API.audit}?kind=nonsense`)).status).toBe(400);
  });

  it('deletes entries older than the retention an admin sets', async () => {
    const b = await bridge();
    await b.access.store.audit.append({
      at: Date.now() - 10 * 86_400_000,
      kind: 'stop',
      actor: 'person',
      personId: b.admin.id,
      personName: 'Ada Admin',
    });
    expect((await audit(b, '?kind=stop')).entries).toHaveLength(1);
    const res = await b.session.request(API.settings, {
      method: 'PUT',
      body: { audit_retention_days: 7 },
    });
    expect(await res.json()).toEqual({
      audit_retention_days: 7,
      people_may_add_desktops: false,
      member_running_local_desktops: DEFAULT_MEMBER_RUNNING_LOCAL_DESKTOPS,
    });
    expect((await audit(b, '?kind=stop')).entries).toHaveLength(0);
  });
});
