// The seed's /ws/overlays against a real bridge: a program with an API token (no Origin, as a
// non-browser client sends) and a signed-in page with a ticket each follow exactly their own
// person's overlays in the seed's shapes; nothing a subscriber sends changes anything; bad or
// foreign credentials are refused; revoking the token closes the feed. What one subscriber,
// token and person may hold is bounded: too many feeds are closed with 4429, a sync_state over
// the limit (the first one too) with 4413, a subscriber that stops reading is dropped.
import {
  API,
  FeedMessage,
  MAX_OVERLAYS,
  toFeedOverlay,
  type Overlay,
} from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestBridge, TOKEN, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { addPerson, createToken } from '../perimeter/testing/people.js';
import { tryUpgrade } from '../perimeter/testing/http.js';
import {
  FEED_CLOSE,
  FEED_MAX_BUFFERED_BYTES,
  FEED_MAX_SYNC_BYTES,
  FEED_SOCKETS_PER_CREDENTIAL,
  FEED_SOCKETS_PER_PERSON,
} from '../limits/feedLimits.js';

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
  closed: { code: number; reason: string } | undefined;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const parsed = FeedMessage.safeParse(JSON.parse(data.toString('utf8')));
      if (parsed.success) this.received.push(parsed.data);
      else this.invalid.push(data.toString('utf8'));
    });
    ws.on('close', (code, reason) => (this.closed = { code, reason: reason.toString('utf8') }));
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

  /** Closes and waits until the bridge has let go of the socket (its seat is free again). */
  async closeAndWait(): Promise<void> {
    this.ws.close();
    await waitUntil(() => this.closed !== undefined, 5000);
  }
}

/** Opens a feed and waits for its first message or its close, whichever comes first. */
async function settle(feed: Feed): Promise<Feed> {
  await waitUntil(() => feed.received.length > 0 || feed.closed !== undefined, 10_000);
  return feed;
}

/** `count` overlays whose labels are 200 control characters: six bytes each once JSON-escaped. */
function escapedOverlays(count: number, prefix: string): Overlay[] {
  return Array.from({ length: count }, (_, i) => ({
    ...OVERLAY,
    overlay_id: `${prefix}_${i}`,
    label: '\u0001'.repeat(200),
  }));
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
    // A full store of the longest labels in printable text that costs the most bytes (three per
    // CJK character): each sync_state is about 8 MiB, and still under the sync limit.
    const control = await ScriptedViewer.connect(bridge);
    const overlays: Overlay[] = Array.from({ length: MAX_OVERLAYS }, (_, i) => ({
      ...OVERLAY,
      overlay_id: `ov_big_${i}`,
      label: '\u6f22'.repeat(200),
    }));
    control.send({ type: 'sync_state', seq: 1_000, overlays });
    await waitUntil(() => bridge.adminPlane.hub.overlayFeed.syncMessage().seq === 1_000, 10_000);
    const syncBytes = Buffer.byteLength(
      JSON.stringify(bridge.adminPlane.hub.overlayFeed.syncMessage()),
    );
    expect(syncBytes).toBeGreaterThan(7 * 1024 * 1024);

    const stalled = await Feed.open(feedUrl(), { Authorization: `Bearer ${TOKEN}` });
    stalled.ws.pause(); // reads nothing from here on
    // Ten full syncs asked for (the request burst) is far more than the kernel's buffers (a few
    // MiB on loopback) and the bridge's allowance together.
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

  it(`closes a token's feed past ${FEED_SOCKETS_PER_CREDENTIAL} with 4429 and says how many are allowed; a closed one frees its seat`, async () => {
    const person = await addPerson(bridge.session, 'feed-caps-token', { grant: 'view' });
    const token = await createToken(person.session, 'feed caps');
    const headers = { Authorization: `Bearer ${token.secret}` };
    const open: Feed[] = [];
    for (let i = 0; i < FEED_SOCKETS_PER_CREDENTIAL; i++) {
      const feed = await settle(await Feed.open(feedUrl(), headers));
      expect(feed.closed).toBeUndefined();
      open.push(feed);
    }
    const extra = await settle(await Feed.open(feedUrl(), headers));
    await waitUntil(() => extra.closed !== undefined, 5000);
    expect(extra.closed).toEqual({
      code: FEED_CLOSE.tooManyFeeds,
      reason: `This token already has ${FEED_SOCKETS_PER_CREDENTIAL} overlay feeds open (${FEED_SOCKETS_PER_CREDENTIAL} allowed): close one, then reconnect.`,
    });
    expect(extra.received).toEqual([]);
    // The others were not disturbed, and closing one lets the next in.
    expect(open.every((f) => f.closed === undefined)).toBe(true);
    await open.pop()?.closeAndWait();
    const again = await settle(await Feed.open(feedUrl(), headers));
    expect(again.closed).toBeUndefined();
    expect(again.received[0]?.type).toBe('sync_state');
    for (const feed of [...open, again]) await feed.closeAndWait();
  });

  it(`closes a person's feed past ${FEED_SOCKETS_PER_PERSON} with 4429, across their tokens and signed-in pages`, async () => {
    const person = await addPerson(bridge.session, 'feed-caps-person', { grant: 'view' });
    const open: Feed[] = [];
    for (let t = 0; t * FEED_SOCKETS_PER_CREDENTIAL < FEED_SOCKETS_PER_PERSON; t++) {
      const token = await createToken(person.session, `feed caps ${t}`);
      for (let i = 0; i < FEED_SOCKETS_PER_CREDENTIAL; i++) {
        const feed = await settle(
          await Feed.open(feedUrl(), { Authorization: `Bearer ${token.secret}` }),
        );
        expect(feed.closed).toBeUndefined();
        open.push(feed);
      }
    }
    expect(open).toHaveLength(FEED_SOCKETS_PER_PERSON);
    const fresh = await createToken(person.session, 'feed caps, one too many');
    const byToken = await settle(
      await Feed.open(feedUrl(), { Authorization: `Bearer ${fresh.secret}` }),
    );
    const ticket = await person.session.ticket('overlays');
    const byPage = await settle(
      await Feed.open(`${feedUrl()}?ticket=${ticket}`, { Origin: new URL(bridge.url).origin }),
    );
    for (const extra of [byToken, byPage]) {
      await waitUntil(() => extra.closed !== undefined, 5000);
      expect(extra.closed).toEqual({
        code: FEED_CLOSE.tooManyFeeds,
        reason: `You already have ${FEED_SOCKETS_PER_PERSON} overlay feeds open (${FEED_SOCKETS_PER_PERSON} allowed, all tokens and pages): close one, then reconnect.`,
      });
    }
    // Another person is not counted against this one.
    const admins = await settle(await Feed.open(feedUrl(), { Authorization: `Bearer ${TOKEN}` }));
    expect(admins.closed).toBeUndefined();
    for (const feed of [...open, admins]) await feed.closeAndWait();
  });

  it('refuses the first sync_state when it is over the limit (10,000 labels of escaped control characters) with 4413, sending none of it', async () => {
    const control = await ScriptedViewer.connect(bridge);
    control.send({
      type: 'sync_state',
      seq: 2_000,
      overlays: escapedOverlays(MAX_OVERLAYS, 'ov_esc'),
    });
    await waitUntil(() => bridge.adminPlane.hub.overlayFeed.syncMessage().seq === 2_000, 10_000);
    const bytes = Buffer.byteLength(
      JSON.stringify({
        type: 'sync_state',
        seq: 2_000,
        overlays: bridge.adminPlane.hub.overlayFeed.syncMessage().overlays.map(toFeedOverlay),
      }),
    );
    // What the attack made: 13 MiB and more once escaped, though under 3 MiB of characters.
    expect(bytes).toBeGreaterThan(FEED_MAX_SYNC_BYTES);
    const feed = await settle(await Feed.open(feedUrl(), { Authorization: `Bearer ${TOKEN}` }));
    await waitUntil(() => feed.closed !== undefined, 5000);
    expect(feed.received).toEqual([]);
    expect(feed.closed?.code).toBe(FEED_CLOSE.syncTooLarge);
    expect(feed.closed?.reason).toBe(
      `The overlays make a ${(bytes / 1024 / 1024).toFixed(1)} MiB sync_state, over the feed's 10 MiB: remove overlays, then reconnect.`,
    );
    control.send({ type: 'clear_overlays', seq: 2_001 });
    await control.close();
  }, 60_000);

  it('closes a subscriber with 4413 when one sync_state makes the store larger than the limit', async () => {
    const control = await ScriptedViewer.connect(bridge);
    control.send({ type: 'clear_overlays', seq: 2_100 });
    await waitUntil(() => bridge.adminPlane.hub.overlayFeed.syncMessage().seq === 2_100, 5000);
    const feed = await Feed.open(feedUrl(), { Authorization: `Bearer ${TOKEN}` });
    expect((await feed.next('sync_state')).overlays).toEqual([]);
    control.send({
      type: 'sync_state',
      seq: 2_101,
      overlays: escapedOverlays(MAX_OVERLAYS, 'ov_grow'),
    });
    await waitUntil(() => feed.closed !== undefined, 10_000);
    expect(feed.closed?.code).toBe(FEED_CLOSE.syncTooLarge);
    expect(feed.received.filter((m) => m.type === 'sync_state')).toHaveLength(1);
    control.send({ type: 'clear_overlays', seq: 2_102 });
    await control.close();
  }, 60_000);
});
