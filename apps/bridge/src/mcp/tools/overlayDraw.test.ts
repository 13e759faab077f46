// draw_overlay settled by the bridge, on the real stack: Xvnc behind the gateway, the bridge, the
// built viewer in Debian's Chromium as the person's control window, the real MCP SDK client, and
// /ws/overlays read with an API token. The AI's answer comes from the bridge (its own ids), and
// the overlay reaches the window and the feed; a remove_overlay right after the draw leaves
// none; temporary_ms still ends it; another person's token draws nothing here; with no control
// window the call is refused exactly as a relayed overlay call is.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FeedMessage, type Overlay } from '@overlay-companion/protocol';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { CHROMIUM_FLAGS, chromiumPath } from '../../headless/chromium.js';
import { startLiveStack, type LiveStack } from '../../headless/testing/liveStack.js';
import { addPerson, createToken } from '../../perimeter/testing/people.js';
import { signIn } from '../../testing/browserSession.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../../testing/testAccess.js';
import type { DesktopPlane } from '../desktopPlanes.js';
import { errorOf } from '../testing/calls.js';
import { TOKEN, connectClient } from '../testing/fixtures.js';
import { waitUntil } from '../testing/wait.js';

/** What the page's read-only test API returns (apps/web/src/control/testApi.ts). */
interface PageApi {
  overlays(): Overlay[];
  control(): { role: string | null };
}

async function pageOverlays(page: Page): Promise<Overlay[]> {
  return page.evaluate(() =>
    (globalThis as unknown as { __overlayCompanion: PageApi }).__overlayCompanion.overlays(),
  );
}

async function pageRole(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const api = (globalThis as unknown as { __overlayCompanion?: PageApi }).__overlayCompanion;
    return api === undefined ? null : api.control().role;
  });
}

/** Polls a page condition (waitUntil takes a synchronous one). */
async function pageUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the page never got there');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('draw_overlay settled by the bridge, on the real stack', () => {
  let stack: LiveStack;
  let plane: DesktopPlane;
  let browser: Browser;
  let page: Page;
  let client: Client;
  let feed: WebSocket;
  const fed: FeedMessage[] = [];
  const feedInvalid: string[] = [];

  const draw = async (args: Record<string, unknown>): Promise<CallToolResult> =>
    (await client.callTool({ name: 'draw_overlay', arguments: args })) as CallToolResult;

  beforeAll(async () => {
    stack = await startLiveStack();
    plane = (await stack.bridge.desktopControl.defaultPlaneFor(stack.fixture.admin.id))!;
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: [...CHROMIUM_FLAGS],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies([{ ...(await stack.adminCookie()), url: stack.bridge.url }]);
    page = await context.newPage();
    await page.goto(stack.bridge.url);
    await pageUntil(async () => (await pageRole(page)) === 'control', 30_000);
    // The window's tunnel shows the desktop: the bridge knows its size.
    await waitUntil(() => stack.bridge.tunnels.desktopSize(plane.desktopId) !== undefined, 30_000);
    ({ client } = await connectClient(stack.bridge));
    feed = new WebSocket(new URL('/ws/overlays', stack.bridge.url.replace(/^http/, 'ws')), {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    feed.on('message', (data: Buffer) => {
      const parsed = FeedMessage.safeParse(JSON.parse(data.toString('utf8')));
      if (parsed.success) fed.push(parsed.data);
      else feedInvalid.push(data.toString('utf8'));
    });
    await new Promise((resolve, reject) => feed.once('open', resolve).once('error', reject));
  }, 90_000);
  afterAll(async () => {
    feed?.close();
    await client?.close();
    await browser?.close();
    await stack?.close();
  });

  const fedCreated = (id: string) =>
    fed.some((m) => m.type === 'overlay_created' && m.overlay.id === id);
  const fedRemoved = (id: string) =>
    fed.some((m) => m.type === 'overlay_removed' && m.overlay_id === id);

  it('answers from the bridge, clamped to the desktop; the window and the feed get the overlay', async () => {
    const { width } = stack.desktop;
    const result = await draw({ x: width - 10, y: 5, width: 100, height: 20, label: 'Save' });
    expect(result.isError).toBeUndefined();
    const drawn = result.structuredContent as { overlay_id: string; bounds: unknown };
    // The bridge's ids (a window's are ov_…): the answer did not wait for the window.
    expect(drawn.overlay_id).toMatch(/^ovb_/);
    expect(drawn.bounds).toEqual({ x: width - 10, y: 5, width: 10, height: 20 });
    await pageUntil(async () =>
      (await pageOverlays(page)).some((o) => o.overlay_id === drawn.overlay_id),
    );
    const shown = (await pageOverlays(page)).find((o) => o.overlay_id === drawn.overlay_id);
    expect(shown).toMatchObject({ bounds: drawn.bounds, label: 'Save', monitor_index: 0 });
    await waitUntil(() => fedCreated(drawn.overlay_id), 5_000);
    // The bridge's copy holds it too (a window opened now, or taking control, gets it).
    expect(plane.hub.overlayFeed.syncMessage().overlays.map((o) => o.overlay_id)).toContain(
      drawn.overlay_id,
    );
    expect(feedInvalid).toEqual([]);
  });

  it('a remove_overlay right after the draw leaves the window with none', async () => {
    const before = (await pageOverlays(page)).length;
    const drawn = (await draw({ x: 100, y: 100, width: 50, height: 50 })).structuredContent as {
      overlay_id: string;
    };
    const removed = (await client.callTool({
      name: 'remove_overlay',
      arguments: { overlay_id: drawn.overlay_id },
    })) as CallToolResult;
    // The window had it already: the overlay_put went ahead of the relayed call on its socket.
    expect(removed.structuredContent).toEqual({ removed: true, not_found: false });
    await waitUntil(() => fedRemoved(drawn.overlay_id), 5_000);
    const after = await pageOverlays(page);
    expect(after.some((o) => o.overlay_id === drawn.overlay_id)).toBe(false);
    expect(after).toHaveLength(before);
    expect(
      plane.hub.overlayFeed.syncMessage().overlays.some((o) => o.overlay_id === drawn.overlay_id),
    ).toBe(false);
  });

  it('temporary_ms still ends it, in the window and on the feed', async () => {
    const drawn = (await draw({ x: 10, y: 10, width: 20, height: 20, temporary_ms: 300 }))
      .structuredContent as { overlay_id: string };
    expect(drawn.overlay_id).toMatch(/^ovb_/);
    await waitUntil(() => fedCreated(drawn.overlay_id), 5_000);
    await waitUntil(() => fedRemoved(drawn.overlay_id), 5_000);
    expect((await pageOverlays(page)).some((o) => o.overlay_id === drawn.overlay_id)).toBe(false);
  });

  it("another person's token draws nothing on this desktop", async () => {
    const admin = await signIn(stack.bridge.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    const mallory = await addPerson(admin, 'mallory', { grant: 'control' });
    const token = await createToken(mallory.session, 'mallory ai');
    const { client: theirs } = await connectClient(stack.bridge, { token: token.secret });
    try {
      const before = plane.hub.overlayFeed.syncMessage();
      const result = (await theirs.callTool({
        name: 'draw_overlay',
        arguments: { x: 1, y: 1, width: 10, height: 10, desktop: plane.desktopId },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(errorOf(result).kind).toBe('permission_denied');
      expect(plane.hub.overlayFeed.syncMessage()).toEqual(before);
      expect(await pageOverlays(page)).toEqual(before.overlays);
    } finally {
      await theirs.close();
    }
  });

  it('with no control window: refused as a relayed overlay call is', async () => {
    await page.close();
    await waitUntil(() => plane.hub.control === undefined, 10_000);
    const drawn = await draw({ x: 1, y: 1, width: 10, height: 10 });
    const relayed = (await client.callTool({
      name: 'clear_overlays',
      arguments: {},
    })) as CallToolResult;
    expect(errorOf(drawn).kind).toBe('viewer_unavailable');
    expect(errorOf(drawn).message).toBe(errorOf(relayed).message);
  });
});
