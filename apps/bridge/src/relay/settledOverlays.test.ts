// draw_overlay settled by the bridge (settledOverlays.ts) and the overlay copy's side of it
// (OverlayRelay.put / forNewControl): the same overlay the control window would draw, handed to it
// in order; every case only the window can answer is left to the relay; an overlay the window
// never took is handed again to the next control window. The routes record what the hub would
// send (the sockets are the hub's; viewerSocket.test.ts and the live test cover them).
import {
  DrawOverlayInput,
  MAX_OVERLAYS,
  MODES,
  PERMISSION_NAMES,
  decideCall,
  parseBridgeMessage,
  type BridgeToViewer,
  type MonitorLayout,
  type Overlay,
} from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { OverlayRelay, type OverlayChange } from './overlayRelay.js';
import { MAX_UNTAKEN_OVERLAYS, drawHere, type DrawHereSources } from './settledOverlays.js';

function recorded() {
  const sent: Array<{ to: string; message: BridgeToViewer }> = [];
  const parse = (text: string): BridgeToViewer => {
    const parsed = parseBridgeMessage(text);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.message;
  };
  const relay = new OverlayRelay({
    toViewer: (to, text) => sent.push({ to, message: parse(text) }),
    toMirrors: (text) => sent.push({ to: 'mirrors', message: parse(text) }),
  });
  const changes: OverlayChange[] = [];
  relay.subscribe((c) => changes.push(c));
  return { relay, sent, changes };
}

const args = (raw: Record<string, unknown>) => DrawOverlayInput.parse(raw);

const LAYOUT: MonitorLayout = {
  monitors: [
    { x: 0, y: 0, width: 1000, height: 800 },
    { x: 1000, y: 0, width: 600, height: 800 },
  ],
  masks: [],
};

function sources(relay: OverlayRelay, over: Partial<DrawHereSources> = {}): DrawHereSources {
  return {
    control: { id: 'v1' },
    desktop: { width: 1600, height: 800 },
    layout: null,
    overlays: relay,
    ...over,
  };
}

describe('drawHere', () => {
  it('answers what the viewer would: bounds clamped to the desktop, the monitor of the centre', () => {
    const { relay, sent, changes } = recorded();
    const result = drawHere(
      args({ x: 1500, y: 700, width: 400, height: 300, label: 'Save', temporary_ms: 2000 }),
      sources(relay, { layout: LAYOUT }),
      1_000,
    );
    expect(result?.overlay_id).toMatch(/^ovb_[0-9a-f]{8}_\d+$/);
    expect(result).toEqual({
      overlay_id: result?.overlay_id,
      bounds: { x: 1500, y: 700, width: 100, height: 100 },
      monitor_index: 1,
    });
    // Handed to the control window, under the copy's next seq, with its times.
    expect(sent).toEqual([
      {
        to: 'v1',
        message: {
          type: 'overlay_put',
          seq: 1,
          overlay: expect.objectContaining({
            overlay_id: result?.overlay_id,
            bounds: result?.bounds,
            label: 'Save',
            created_at: 1_000,
            expires_at: 3_000,
          }) as Overlay,
        },
      },
    ]);
    // Kept in the copy (a window asking gets it), but the feed and the mirrors hear of it only
    // when the control window announces it.
    expect(relay.syncMessage().overlays.map((o) => o.overlay_id)).toEqual([result?.overlay_id]);
    expect(changes).toEqual([]);
    expect(relay.untaken).toBe(1);
  });

  it('places monitor-relative rectangles on the named monitor of the layout', () => {
    const { relay } = recorded();
    const result = drawHere(
      args({ x: 10, y: 20, width: 30, height: 40, monitor_index: 1 }),
      sources(relay, { layout: LAYOUT }),
    );
    expect(result).toMatchObject({ bounds: { x: 1010, y: 20, width: 30, height: 40 } });
    expect(result?.monitor_index).toBe(1);
  });

  it('leaves to the control window every call only it can answer', () => {
    const plain = args({ x: 1, y: 2, width: 3, height: 4 });
    const { relay, sent } = recorded();
    // No control window here (none, or on another bridge of the site): relayed, same refusal.
    expect(drawHere(plain, sources(relay, { control: undefined }))).toBeUndefined();
    // No tunnel shows the desktop: the viewer says what it says today.
    expect(drawHere(plain, sources(relay, { desktop: undefined }))).toBeUndefined();
    // The layout not loaded yet.
    expect(drawHere(plain, sources(relay, { layout: undefined }))).toBeUndefined();
    // A monitor the layout does not have: the viewer's refusal lists the monitors it has.
    expect(
      drawHere(
        args({ x: 1, y: 2, width: 3, height: 4, monitor_index: 2 }),
        sources(relay, { layout: LAYOUT }),
      ),
    ).toBeUndefined();
    expect(
      drawHere(args({ x: 1, y: 2, width: 3, height: 4, monitor_index: 1 }), sources(relay)),
    ).toBeUndefined();
    expect(sent).toEqual([]);
    expect(relay.size).toBe(0);
  });

  it('stops settling when the control window falls behind, and again once it caught up', () => {
    const { relay, sent } = recorded();
    const plain = args({ x: 1, y: 2, width: 3, height: 4 });
    for (let i = 0; i < MAX_UNTAKEN_OVERLAYS; i++)
      expect(drawHere(plain, sources(relay))).toBeDefined();
    expect(drawHere(plain, sources(relay))).toBeUndefined();
    // The window announces the first one: room for one more.
    const first = sent[0]?.message;
    if (first?.type !== 'overlay_put') throw new Error('expected an overlay_put');
    relay.handle('v1', true, { type: 'overlay_created', overlay: first.overlay, seq: 1 });
    expect(relay.untaken).toBe(MAX_UNTAKEN_OVERLAYS - 1);
    expect(drawHere(plain, sources(relay))).toBeDefined();
  });

  it('leaves the "no room" refusal to the viewer when the store is full', () => {
    const { relay } = recorded();
    relay.handle('v1', true, {
      type: 'sync_state',
      seq: 5,
      overlays: Array.from({ length: MAX_OVERLAYS }, (_, i) => ({
        overlay_id: `ov_${i}`,
        bounds: { x: 0, y: 0, width: 1, height: 1 },
        color: 'red',
        opacity: 0.5,
        click_through: true,
        monitor_index: 0,
        created_at: 1,
      })),
    });
    expect(drawHere(args({ x: 1, y: 2, width: 3, height: 4 }), sources(relay))).toBeUndefined();
  });
});

describe('the copy and the control window', () => {
  it("takes the control window's overlay_created for it as the one announcement (feed, mirrors)", () => {
    const { relay, sent, changes } = recorded();
    const result = drawHere(args({ x: 1, y: 2, width: 3, height: 4 }), sources(relay));
    const put = sent[0]?.message;
    if (put?.type !== 'overlay_put' || result === undefined) throw new Error('not settled');
    const announced = { ...put.overlay, created_at: 5 };
    relay.handle('v1', true, { type: 'overlay_created', overlay: announced, seq: put.seq });
    expect(changes).toEqual([{ type: 'overlay_created', overlay: announced, seq: 1 }]);
    expect(sent.at(-1)).toEqual({
      to: 'mirrors',
      message: { type: 'overlay_created', overlay: announced, seq: 1 },
    });
    expect(relay.syncMessage()).toEqual({ type: 'sync_state', seq: 1, overlays: [announced] });
    expect(relay.untaken).toBe(0);
  });

  it('hands an overlay the old control window never took to the next one, after the copy', () => {
    const { relay, sent } = recorded();
    const result = drawHere(args({ x: 1, y: 2, width: 3, height: 4 }), sources(relay));
    const texts = relay.forNewControl().map((t) => parseBridgeMessage(t));
    expect(texts.map((p) => (p.ok ? p.message.type : p.error))).toEqual([
      'sync_state',
      'overlay_put',
    ]);
    const [sync, put] = texts;
    expect(sync?.ok && sync.message.type === 'sync_state' && sync.message.seq).toBe(0);
    expect(put?.ok && put.message.type === 'overlay_put' && put.message.overlay.overlay_id).toBe(
      result?.overlay_id,
    );
    // Once taken (announced, or refused with overlay_removed), it is not handed again.
    const first = sent[0]?.message;
    if (first?.type !== 'overlay_put') throw new Error('expected an overlay_put');
    relay.handle('v2', true, {
      type: 'overlay_removed',
      overlay_id: first.overlay.overlay_id,
      seq: 2,
    });
    expect(relay.forNewControl()).toHaveLength(1);
    expect(relay.size).toBe(0);
  });

  it("a mirror's word neither takes an overlay nor changes the copy", () => {
    const { relay, sent } = recorded();
    drawHere(args({ x: 1, y: 2, width: 3, height: 4 }), sources(relay));
    const put = sent[0]?.message;
    if (put?.type !== 'overlay_put') throw new Error('expected an overlay_put');
    expect(
      relay.handle('v2', false, {
        type: 'overlay_removed',
        overlay_id: put.overlay.overlay_id,
        seq: 9,
      }),
    ).toMatch(/only the control viewer/);
    expect(relay.untaken).toBe(1);
    expect(relay.size).toBe(1);
  });

  it('a window taking control before it took the overlay still ends with it, under its own seq', () => {
    const { relay, sent } = recorded();
    relay.handle('v1', true, { type: 'clear_overlays', seq: 3 });
    drawHere(args({ x: 1, y: 2, width: 3, height: 4 }), sources(relay));
    const put = sent.at(-1)?.message;
    if (put?.type !== 'overlay_put') throw new Error('expected an overlay_put');
    // The seq stays the window's to give: the copy holds the overlay at the seq it had, and the
    // put asks for the next one.
    expect(relay.syncMessage().seq).toBe(3);
    expect(put.seq).toBe(4);
    // v1 closed without taking it; v2 takes control: hello carries the copy, then the put.
    const handed = relay.forNewControl();
    expect(handed).toHaveLength(2);
    // v2 announces its own store first (seq 3, without the overlay): as new as the copy, kept...
    relay.handle('v2', true, { type: 'sync_state', seq: 3, overlays: [] });
    expect(relay.size).toBe(0);
    // ...then reads the put and announces the overlay: every copy has it again.
    relay.handle('v2', true, { type: 'overlay_created', overlay: put.overlay, seq: 4 });
    expect(relay.syncMessage()).toEqual({ type: 'sync_state', seq: 4, overlays: [put.overlay] });
    expect(relay.untaken).toBe(0);
  });

  it("the window's own change under the same seq never hides behind the bridge's draw", () => {
    const { relay, sent } = recorded();
    const expiring: Overlay = {
      overlay_id: 'ov_e',
      bounds: { x: 0, y: 0, width: 1, height: 1 },
      color: 'red',
      opacity: 0.5,
      click_through: true,
      monitor_index: 0,
      created_at: 1,
    };
    relay.handle('v1', true, { type: 'overlay_created', overlay: expiring, seq: 1 });
    drawHere(args({ x: 1, y: 2, width: 3, height: 4 }), sources(relay));
    // A mirror asks now: it gets the copy at seq 1 (with both), not a seq the window may give.
    expect(relay.syncMessage().seq).toBe(1);
    // Meanwhile the window expired ov_e as seq 2: the mirror at 1 applies it.
    relay.handle('v1', true, { type: 'overlay_removed', overlay_id: 'ov_e', seq: 2 });
    expect(sent.at(-1)).toEqual({
      to: 'mirrors',
      message: { type: 'overlay_removed', overlay_id: 'ov_e', seq: 2 },
    });
    expect(relay.syncMessage().seq).toBe(2);
  });

  it("the viewer's gate could not refuse a draw the bridge settles: decideCall allows a plain draw_overlay in every state", () => {
    // The bridge settles only what the one policy allowed (toolCall.ts → decideCall, then
    // overlayDraw.ts with decision 'allow'); the viewer's policyGate re-runs the same decideCall
    // over its own view of the mode and toggles — unknown ones included — so for a plain draw it
    // would say run every time. Should draw_overlay ever need a toggle or a mode, this fails: a
    // settled draw would then skip a check the window could make, and must be relayed instead.
    const toggles = [
      undefined,
      Object.fromEntries(PERMISSION_NAMES.map((n) => [n, false])),
      Object.fromEntries(PERMISSION_NAMES.map((n) => [n, true])),
    ];
    const metadata = [undefined, null, { deny: ['draw_overlay'] }, 'not a policy'];
    for (const mode of MODES)
      for (const permissions of toggles)
        for (const meta of metadata) {
          const verdict = decideCall({
            mode,
            metadata: meta,
            permissions: permissions as Parameters<typeof decideCall>[0]['permissions'],
            tool: 'draw_overlay',
            args: args({ x: 1, y: 2, width: 3, height: 4 }),
          });
          expect(verdict.decision, `${mode} ${JSON.stringify(meta)}`).toBe('allow');
        }
  });
});
