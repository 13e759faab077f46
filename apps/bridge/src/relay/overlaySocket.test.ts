// The seed's /ws/overlays against a real bridge: a program with an API token (no Origin, as a
// non-browser client sends) and a signed-in page with a ticket each follow exactly their own
// person's overlays in the seed's shapes; nothing a subscriber sends changes anything; bad or
// foreign credentials are refused; revoking the token closes the feed.
import { API, FeedMessage, MAX_OVERLAYS, type Overlay } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestBridge, TOKEN, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { addPerson, createToken } from '../security/testing/people.js';
import { tryUpgrade } from '../security/testing/http.js';
import { FEED_MAX_BUFFERED_BYTES } from './overlaySocket.js';

const OVERLAY: Overlay = {
  overlay_id: 'ov_feed_1',
  bounds: { x: 10, y: 20, width: 30, height: 40 },
  color: '#ffcc00',
  opacity: 0.5,
  label: '<b>Save</b>',
  click_through: true,
  monitor_index: 0,
  created_at: Date.UTC(2025, 7, 24, 8, 10, 0),
};

/** A feed subscriber: every frame parsed with the protocol's FeedMessage schema. */
class Feed {
  readonly received: FeedMessage[] = [];
  readonly invalid: string[] = [];
  closed: { code: number } | undefined;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const parsed = FeedMessage.safeParse(JSON.parse(data.toString('utf8')));
      if (parsed.success) this.received.push(parsed.data);
      else this.invalid.push(data.toString('utf8'));
    });
    ws.on('close', (code) => (this.closed = { code }));
  }

  static open(url: string, headers: Record<string, string>): Promise<Feed> {
    const ws = new WebSocket(url, { headers });
    const feed = new Feed(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(feed));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  async next<T extends FeedMessage['type']>(
    type: T,
    from = 0,
  ): Promise<Extract<FeedMessage, { type: T }>> {
    await waitUntil(() => this.received.slice(from).some((m) => m.type === type), 5000);
    return this.received.slice(from).find((m) => m.type === type) as Extract<
      FeedMessage,
      { type: T }
    >;
  }

  close(): void {
    this.ws.close();
  }
}

describe('/ws/overlays', () => {
  let bridge: TestBridge;
  const feedUrl = () => new URL('/ws/overlays', bridge.url.replace(/^http/, 'ws')).toString();

  beforeAll(async () => {
    bridge = await startTestBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  it("gives a token holder the person's overlays in the seed's shapes: sync_state, then each change", async () => {
    const control = await ScriptedViewer.connect(bridge);
    control.send({ type: 'clear_overlays', seq: 1 });
    const feed = await Feed.open(feedUrl(), { Authorization: `Bearer ${TOKEN}` });
    const first = await feed.next('sync_state');
    expect(first.overlays).toEqual([]);
    control.send({ type: 'overlay_created', overlay: OVERLAY, seq: 2 });
    const created = await feed.next('overlay_created');
    // The seed's example, field for field (plus our extensions).
    expect(created.overlay).toEqual({
      id: 'ov_feed_1',
      x: 10,
      y: 20,
      width: 30,
      height: 40,
      color: '#ffcc00',
      opacity: 0.5,
      monitor_index: 0,
      created_at: '2025-08-24T08:10:00.000Z',
      label: '<b>Save</b>',
      click_through: true,
    });
    control.send({ type: 'overlay_removed', overlay_id: 'ov_feed_1', seq: 3 });
    expect(await feed.next('overlay_removed')).toEqual({
      type: 'overlay_removed',
      overlay_id: 'ov_feed_1',
      seq: 3,
    });
    control.send({ type: 'clear_overlays', seq: 4 });
    expect(await feed.next('clear_overlays', 2)).toEqual({ type: 'clear_overlays', seq: 4 });
    expect(feed.invalid).toEqual([]);
    feed.close();
    await control.close();
  });

  it('is read-only: a subscriber can only ask for request_sync', async () => {
    const control = await ScriptedViewer.connect(bridge);
    control.send({ type: 'clear_overlays', seq: 10 });
    control.send({ type: 'overlay_created', overlay: OVERLAY, seq: 11 });
    await waitUntil(() => bridge.adminPlane.hub.overlayFeed.syncMessage().seq === 11, 5000);
    const feed = await Feed.open(feedUrl(), { Authorization: `Bearer ${TOKEN}` });
    await feed.next('sync_state');
    for (const attempt of [
      { type: 'clear_overlays', seq: 99 },
      { type: 'overlay_removed', overlay_id: 'ov_feed_1', seq: 99 },
      { type: 'sync_state', seq: 99, overlays: [] },
      'not json',
    ]) {
      const at = feed.received.length;
      feed.ws.send(typeof attempt === 'string' ? attempt : JSON.stringify(attempt));
      const error = await feed.next('error', at);
      expect(error.message).toMatch(/read-only/);
    }
    // Nothing changed: not the bridge's copy, and no window was told anything.
    expect(bridge.adminPlane.hub.overlayFeed.syncMessage()).toMatchObject({ seq: 11 });
    expect(
      control.received.some(
        (m) => m.type === 'clear_overlays' || (m.type === 'sync_state' && m.seq === 99),
      ),
    ).toBe(false);
    const at = feed.received.length;
    feed.ws.send(JSON.stringify({ type: 'request_sync' }));
    const again = await feed.next('sync_state', at);
    expect(again.overlays.map((o) => o.id)).toEqual(['ov_feed_1']);
    feed.close();
    await control.close();
  });

  it("shows a signed-in page (ticket) its desktop's overlays, and refuses another person's token with no grant there", async () => {
    const control = await ScriptedViewer.connect(bridge);
    control.send({ type: 'clear_overlays', seq: 20 });
    control.send({ type: 'overlay_created', overlay: OVERLAY, seq: 21 });
    await waitUntil(() => bridge.adminPlane.hub.overlayFeed.syncMessage().seq === 21, 5000);
    const ticket = await bridge.session.ticket('overlays');
    const page = await Feed.open(`${feedUrl()}?ticket=${ticket}`, {
      Origin: new URL(bridge.url).origin,
    });
    expect((await page.next('sync_state')).overlays.map((o) => o.id)).toEqual(['ov_feed_1']);

    const other = await addPerson(bridge.session, 'feed-other');
    const theirs = await createToken(other.session, 'their feed');
    // The other person has no desktop at all: their token opens no feed.
    const foreign = await tryUpgrade(bridge.url, '/ws/overlays', {
      origin: null,
      headers: { Authorization: `Bearer ${theirs.secret}` },
    });
    expect(foreign.status).toBe(404);
    control.send({ type: 'overlay_removed', overlay_id: 'ov_feed_1', seq: 22 });
    await page.next('overlay_removed');
    page.close();
    await control.close();
  });

  it('refuses missing, wrong and foreign-origin credentials, and a viewer ticket', async () => {
    const noAuth = await tryUpgrade(bridge.url, '/ws/overlays');
    expect(noAuth.status).toBe(401);
    expect(noAuth.body).toMatch(/ticket.*Bearer/s);
    const wrong = await tryUpgrade(bridge.url, '/ws/overlays', {
      origin: null,
      headers: { Authorization: 'Bearer not-a-token-0000000000000000' },
    });
    expect(wrong.status).toBe(401);
    // No Origin is allowed only with a bearer token; a page on another site is refused.
    expect((await tryUpgrade(bridge.url, '/ws/overlays', { origin: null })).status).toBe(403);
    const evil = await tryUpgrade(bridge.url, '/ws/overlays', {
      origin: 'https://evil.example',
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(evil.status).toBe(403);
    const viewerTicket = await bridge.session.ticket('viewer');
    expect((await tryUpgrade(bridge.url, `/ws/overlays?ticket=${viewerTicket}`)).status).toBe(401);
  });

  it('closes a token feed when the token is revoked, and a flooding subscriber', async () => {
    const token = await createToken(bridge.session, 'feed to revoke');
    const feed = await Feed.open(feedUrl(), { Authorization: `Bearer ${token.secret}` });
    await feed.next('sync_state');
    const revoked = await bridge.session.request(`${API.tokens}/${token.id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    await waitUntil(() => feed.closed !== undefined, 5000);
    expect(feed.closed?.code).toBe(4401);

    const flooding = await Feed.open(feedUrl(), { Authorization: `Bearer ${TOKEN}` });
    await flooding.next('sync_state');
    for (let i = 0; i < 50; i++) flooding.ws.send(JSON.stringify({ type: 'request_sync' }));
    await waitUntil(() => flooding.closed !== undefined, 5000);
    expect(flooding.closed?.code).toBe(1008);
  });

  it('cuts off a subscriber that stops reading instead of holding ever more for it, and keeps serving the others', async () => {
    // A full store with the longest labels: each sync_state is several megabytes.
    const control = await ScriptedViewer.connect(bridge);
    const overlays: Overlay[] = Array.from({ length: MAX_OVERLAYS }, (_, i) => ({
      ...OVERLAY,
      overlay_id: `ov_big_${i}`,
      label: 'x'.repeat(200),
    }));
    control.send({ type: 'sync_state', seq: 1_000, overlays });
    await waitUntil(() => bridge.adminPlane.hub.overlayFeed.syncMessage().seq === 1_000, 10_000);
    const syncBytes = JSON.stringify(bridge.adminPlane.hub.overlayFeed.syncMessage()).length;

    const stalled = await Feed.open(feedUrl(), { Authorization: `Bearer ${TOKEN}` });
    stalled.ws.pause(); // reads nothing from here on
    // Ten full syncs asked for (the request burst) is far more than the kernel's buffers and
    // the bridge's allowance together.
    expect(syncBytes * 10).toBeGreaterThan(FEED_MAX_BUFFERED_BYTES * 3);
    for (let i = 0; i < 10; i++) stalled.ws.send(JSON.stringify({ type: 'request_sync' }));

    // Meanwhile another subscriber is served as usual.
    const other = await Feed.open(feedUrl(), { Authorization: `Bearer ${TOKEN}` });
    expect((await other.next('sync_state')).overlays).toHaveLength(MAX_OVERLAYS);

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    stalled.ws.resume();
    await waitUntil(() => stalled.closed !== undefined, 20_000);
    // Dropped without a close handshake, before all eleven syncs were delivered.
    expect(stalled.closed?.code).toBe(1006);
    expect(stalled.received.filter((m) => m.type === 'sync_state').length).toBeLessThan(11);
    expect(other.closed).toBeUndefined();
    other.close();
    control.send({ type: 'clear_overlays', seq: 1_001 });
    await control.close();
  }, 60_000);
});
