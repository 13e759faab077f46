// The /ws/viewer control channel against a real bridge: tickets, Origin, roles and promotion,
// overlay relay to mirrors, request_sync forwarding, and bad frames. Viewers are SCRIPTED
// VIEWERS (test ws clients speaking the protocol).
import { PROTOCOL_VERSION } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { addPerson } from '../perimeter/testing/people.js';
import { settle } from '../perimeter/testing/viewers.js';

const OVERLAY = {
  overlay_id: 'ov_1',
  bounds: { x: 1, y: 2, width: 3, height: 4 },
  color: 'red',
  opacity: 0.5,
  click_through: true,
  monitor_index: 0,
  created_at: 1_700_000_000_000,
};

describe('viewer control channel', () => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startTestBridge({ access: { ticketTtlMs: 300 } });
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('sends hello first: protocol version, viewer id, mode and role', async () => {
    const viewer = await ScriptedViewer.connect(bridge);
    expect(viewer.received[0]).toMatchObject({
      type: 'hello',
      protocol_version: PROTOCOL_VERSION,
      mode: 'assist',
      role: 'control',
      headless: false,
    });
    await viewer.close();
  });

  it('accepts a ticket once, and never after it expired', async () => {
    const ticket = await bridge.ticket();
    const first = await ScriptedViewer.connectWithTicket(bridge.url, ticket);
    await expect(ScriptedViewer.connectWithTicket(bridge.url, ticket)).rejects.toThrow(
      /401.*ticket/,
    );
    await first.close();
    const stale = await bridge.ticket();
    await new Promise((r) => setTimeout(r, 400));
    await expect(ScriptedViewer.connectWithTicket(bridge.url, stale)).rejects.toThrow(/401/);
    await expect(ScriptedViewer.connectWithTicket(bridge.url, 'made-up')).rejects.toThrow(/401/);
  });

  it('checks Origin on the upgrade', async () => {
    const ticket = await bridge.ticket();
    await expect(
      ScriptedViewer.connectWithTicket(bridge.url, ticket, { origin: 'http://evil.example' }),
    ).rejects.toThrow(/403.*Forbidden Origin/);
    const again = await bridge.ticket();
    const ok = await ScriptedViewer.connectWithTicket(bridge.url, again, {
      origin: new URL(bridge.url).origin,
    });
    await ok.close();
  });

  it('makes later viewers mirrors and promotes the oldest mirror when the control viewer leaves', async () => {
    const a = await ScriptedViewer.connect(bridge);
    const b = await ScriptedViewer.connect(bridge);
    const c = await ScriptedViewer.connect(bridge);
    expect([a.hello.role, b.hello.role, c.hello.role]).toEqual(['control', 'mirror', 'mirror']);
    await a.close();
    await b.waitFor((m) => m.type === 'hello' && m.role === 'control');
    expect(b.hello.viewer_id).toBe(b.received[0]?.type === 'hello' ? b.received[0].viewer_id : '');
    expect(c.received.filter((m) => m.type === 'hello')).toHaveLength(1);
    await b.close();
    await c.waitFor((m) => m.type === 'hello' && m.role === 'control');
    await c.close();
  });

  it('relays overlay changes from the control viewer to mirrors, not back, and not from mirrors', async () => {
    const control = await ScriptedViewer.connect(bridge);
    const mirror = await ScriptedViewer.connect(bridge);
    control.send({ type: 'overlay_created', overlay: OVERLAY, seq: 1 });
    control.send({ type: 'overlay_removed', overlay_id: 'ov_1', seq: 2 });
    control.send({ type: 'clear_overlays', seq: 3 });
    await mirror.waitFor((m) => m.type === 'clear_overlays');
    expect(mirror.received.map((m) => m.type)).toEqual([
      'hello',
      'event_interest',
      'ai_clients',
      'layout_changed',
      'overlay_created',
      'overlay_removed',
      'clear_overlays',
    ]);
    expect(mirror.received[4]).toEqual({ type: 'overlay_created', overlay: OVERLAY, seq: 1 });
    mirror.send({ type: 'overlay_created', overlay: OVERLAY, seq: 9 });
    const error = await mirror.waitFor((m) => m.type === 'error');
    expect((error as { message: string }).message).toMatch(/only the control viewer/);
    expect(control.received.some((m) => m.type === 'overlay_created')).toBe(false);
    await control.close();
    await mirror.close();
  });

  it("relays the control window's waiting approvals to the other windows, refuses them from a mirror, and clears them when the control window leaves", async () => {
    const control = await ScriptedViewer.connect(bridge);
    const mirror = await ScriptedViewer.connect(bridge);
    const waiting = {
      type: 'approvals_waiting',
      requests: [{ title: 'Click with the left button', deadline_in_ms: 29_000 }],
    };
    control.send(waiting);
    expect(await mirror.waitFor((m) => m.type === 'approvals_waiting')).toEqual(waiting);
    // A window opened later learns it with its greeting.
    const late = await ScriptedViewer.connect(bridge);
    expect(await late.waitFor((m) => m.type === 'approvals_waiting')).toEqual(waiting);
    // A mirror has no queue to announce.
    mirror.send({ type: 'approvals_waiting', requests: [] });
    const error = await mirror.waitFor((m) => m.type === 'error');
    expect((error as { message: string }).message).toMatch(/only the control viewer/);
    expect(control.received.some((m) => m.type === 'approvals_waiting')).toBe(false);
    // The control window goes: its questions went with it.
    await control.close();
    await late.waitFor((m) => m.type === 'approvals_waiting' && m.requests.length === 0);
    await mirror.close();
    await late.close();
  });

  it("relays the AI actions the control window runs to the person's other windows, and refuses them from a mirror", async () => {
    const control = await ScriptedViewer.connect(bridge);
    const mirror = await ScriptedViewer.connect(bridge);
    const action = {
      type: 'ai_action',
      action: { kind: 'click', x: 1500, y: 300, button: 'left', clicks: 1 },
    };
    // Another person, with no grant on this desktop, cannot even open a window on it.
    await expect(
      ScriptedViewer.connect((await addPerson(bridge.session, 'ai-action-other')).session),
    ).rejects.toThrow(/404/);
    control.send(action);
    expect(await mirror.waitFor((m) => m.type === 'ai_action')).toEqual(action);
    // Not echoed to the window that ran it; a mirror runs nothing, so it has nothing to say.
    mirror.send({ type: 'ai_action', action: { kind: 'move', x: 1, y: 1 } });
    const error = await mirror.waitFor((m) => m.type === 'error');
    expect((error as { message: string }).message).toMatch(/only the control viewer/);
    expect(control.received.some((m) => m.type === 'ai_action')).toBe(false);
    await control.close();
    await mirror.close();
  });

  it('tells every window when the person takes over in any of them, tells later windows too, and lets no headless viewer hand back', async () => {
    const control = await ScriptedViewer.connect(bridge);
    const mirror = await ScriptedViewer.connect(bridge);
    // Another person, with no grant on this desktop, cannot even open a window on it.
    await expect(
      ScriptedViewer.connect((await addPerson(bridge.session, 'take-over-other')).session),
    ).rejects.toThrow(/404/);
    // Pressed in the mirror: the control window (which runs the AI's input) hears it.
    mirror.send({ type: 'take_over', on: true });
    expect(await control.waitFor((m) => m.type === 'take_over')).toEqual({
      type: 'take_over',
      on: true,
    });
    const late = await ScriptedViewer.connect(bridge);
    expect(await late.waitFor((m) => m.type === 'take_over')).toEqual({
      type: 'take_over',
      on: true,
    });
    const headless = await ScriptedViewer.connect(bridge, { headless: true });
    headless.send({ type: 'take_over', on: false });
    const refused = await headless.waitFor((m) => m.type === 'error');
    expect((refused as { message: string }).message).toMatch(/headless viewer cannot hand/);
    expect(control.received.filter((m) => m.type === 'take_over')).toHaveLength(1);
    // Handed back from the control window: everyone hears it, and a later window hears nothing.
    control.send({ type: 'take_over', on: false });
    await mirror.waitFor((m) => m.type === 'take_over' && !m.on);
    const fresh = await ScriptedViewer.connect(bridge);
    // Its request_sync is answered after everything the greeting brought.
    fresh.send({ type: 'request_sync' });
    await fresh.waitFor((m) => m.type === 'sync_state');
    expect(fresh.received.some((m) => m.type === 'take_over')).toBe(false);
    for (const v of [control, mirror, late, headless, fresh]) await v.close();
  });

  it("answers a mirror's request_sync from the bridge's copy of the control window's store", async () => {
    const control = await ScriptedViewer.connect(bridge);
    const mirror = await ScriptedViewer.connect(bridge);
    const bystander = await ScriptedViewer.connect(bridge);
    control.send({ type: 'clear_overlays', seq: 6 });
    control.send({ type: 'overlay_created', overlay: OVERLAY, seq: 7 });
    await mirror.waitFor((m) => m.type === 'overlay_created');
    const syncs = bystander.received.filter((m) => m.type === 'sync_state').length;
    mirror.send({ type: 'request_sync' });
    const state = await mirror.waitFor((m) => m.type === 'sync_state');
    expect(state).toEqual({ type: 'sync_state', seq: 7, overlays: [OVERLAY] });
    // Answered by the bridge: the control window is not bothered, the bystander not told.
    await settle(mirror);
    expect(control.received.some((m) => m.type === 'request_sync')).toBe(false);
    expect(bystander.received.filter((m) => m.type === 'sync_state')).toHaveLength(syncs);
    control.send({ type: 'clear_overlays', seq: 8 });
    await mirror.waitFor((m) => m.type === 'clear_overlays');
    for (const v of [control, mirror, bystander]) await v.close();
  });

  it('hands the overlays to the window that takes control, and to a window opened after all were closed', async () => {
    const control = await ScriptedViewer.connect(bridge);
    const mirror = await ScriptedViewer.connect(bridge);
    const second = { ...OVERLAY, overlay_id: 'ov_2' };
    control.send({ type: 'clear_overlays', seq: 20 });
    control.send({ type: 'overlay_created', overlay: OVERLAY, seq: 21 });
    control.send({ type: 'overlay_created', overlay: second, seq: 22 });
    await mirror.waitFor((m) => m.type === 'overlay_created' && m.overlay.overlay_id === 'ov_2');
    await control.close();
    await mirror.waitFor((m) => m.type === 'hello' && m.role === 'control');
    // The promoted window gets the store as the bridge has it, with the hello.
    const handed = await mirror.waitFor((m) => m.type === 'sync_state');
    expect(handed).toEqual({ type: 'sync_state', seq: 22, overlays: [OVERLAY, second] });
    await mirror.close();
    const later = await ScriptedViewer.connect(bridge);
    expect(later.hello.role).toBe('control');
    expect(await later.waitFor((m) => m.type === 'sync_state')).toEqual(handed);
    await later.close();
  });

  it("keeps the newer store when a window takes control: its own if newer, else the bridge's", async () => {
    const control = await ScriptedViewer.connect(bridge);
    const mirror = await ScriptedViewer.connect(bridge);
    control.send({ type: 'clear_overlays', seq: 30 });
    await mirror.waitFor((m) => m.type === 'clear_overlays' && m.seq === 30);
    // A stale announcement (seq 29 < 30) is not taken, and nobody is told.
    control.send({ type: 'sync_state', seq: 29, overlays: [OVERLAY] });
    await settle(control);
    expect(mirror.received.some((m) => m.type === 'sync_state' && m.seq === 29)).toBe(false);
    // A newer one (a control window that outlived a bridge restart) is taken and relayed.
    control.send({ type: 'sync_state', seq: 40, overlays: [OVERLAY] });
    expect(await mirror.waitFor((m) => m.type === 'sync_state' && m.seq === 40)).toEqual({
      type: 'sync_state',
      seq: 40,
      overlays: [OVERLAY],
    });
    // Only the control window announces its store.
    mirror.send({ type: 'sync_state', seq: 99, overlays: [] });
    const error = await mirror.waitFor((m) => m.type === 'error');
    expect((error as { message: string }).message).toMatch(/only the control viewer/);
    control.send({ type: 'clear_overlays', seq: 41 });
    await mirror.waitFor((m) => m.type === 'clear_overlays' && m.seq === 41);
    await control.close();
    await mirror.close();
  });

  it('answers a bad frame with an error, logs it, and keeps the socket up', async () => {
    const viewer = await ScriptedViewer.connect(bridge);
    viewer.send('not json');
    viewer.send({ type: 'tool_result' });
    viewer.send({ type: 'teleport' });
    await waitUntil(() => viewer.received.filter((m) => m.type === 'error').length === 3);
    const errors = viewer.received
      .filter((m) => m.type === 'error')
      .map((m) => (m as { message: string }).message);
    expect(errors[0]).toMatch(/not valid JSON/);
    expect(errors[1]).toMatch(/invalid tool_result message: id: is required/);
    expect(errors[2]).toMatch(/unknown viewer message type "teleport"/);
    expect(viewer.closed).toBe(false);
    // Still works: a mode_set is applied.
    viewer.send({ type: 'mode_set', mode: 'passive' });
    await viewer.waitFor((m) => m.type === 'mode_changed' && m.mode === 'passive');
    await viewer.close();
  });

  it('closes a socket that keeps sending bad frames (flood)', async () => {
    const viewer = await ScriptedViewer.connect(bridge);
    for (let i = 0; i < 40; i += 1) viewer.send('{');
    await waitUntil(() => viewer.closed);
    expect(viewer.received.filter((m) => m.type === 'error').length).toBeLessThanOrEqual(21);
  });

  it("never counts answers to the bridge's own calls as a flood", async () => {
    const viewer = await ScriptedViewer.connect(bridge);
    viewer.on('clear_overlays', { result: { cleared: 0 } });
    // More answers at once than the unsolicited-frame burst (MESSAGE_LIMIT, 1000) allows: with
    // 20 MCP sessions at 100 calls/s each the viewer answers 2000 calls a second.
    const calls = Array.from({ length: 1200 }, () =>
      bridge.adminPlane.hub.call('clear_overlays', {}, 'allow', { timeoutMs: 20_000 }),
    );
    const results = await Promise.all(calls);
    expect(results).toHaveLength(1200);
    expect(results.every((r) => r.cleared === 0)).toBe(true);
    expect(viewer.closed).toBe(false);
    await viewer.close();
  });

  it('closes a socket that floods with valid frames nobody asked for, answers to unknown calls included', async () => {
    const viewer = await ScriptedViewer.connect(bridge);
    for (let i = 0; i < 1100; i += 1) {
      viewer.send({ type: 'tool_result', id: `call_made_up_${i}`, result: { cleared: 0 } });
    }
    await waitUntil(() => viewer.closed, 10_000);
    const errors = viewer.received.filter((m) => m.type === 'error').length;
    // Each one was answered until the limit (the burst plus what refilled meanwhile), and none
    // after it.
    expect(errors).toBeGreaterThan(900);
    expect(errors).toBeLessThan(1100);
  });

  it("never counts the control window's overlay changes as a flood; a mirror sending them floods", async () => {
    const control = await ScriptedViewer.connect(bridge);
    const mirror = await ScriptedViewer.connect(bridge);
    control.send({ type: 'clear_overlays', seq: 1000 });
    for (let i = 1; i <= 1500; i += 1) {
      control.send({
        type: 'overlay_created',
        overlay: { ...OVERLAY, overlay_id: `ov_burst_${i}` },
        seq: 1000 + i,
      });
    }
    await mirror.waitFor((m) => m.type === 'overlay_created' && m.seq === 2500, 10_000);
    expect(control.closed).toBe(false);
    for (let i = 0; i < 1100; i += 1) mirror.send({ type: 'clear_overlays', seq: 9000 + i });
    await waitUntil(() => mirror.closed, 10_000);
    control.send({ type: 'clear_overlays', seq: 2501 });
    await control.close();
  });

  it('never sends a call the MCP client cancelled before it left the bridge', async () => {
    const viewer = await ScriptedViewer.connect(bridge);
    viewer.on('clear_overlays', { result: { cleared: 0 } });
    const abort = new AbortController();
    abort.abort();
    await expect(
      bridge.adminPlane.hub.call('clear_overlays', {}, 'allow', {
        timeoutMs: 5000,
        signal: abort.signal,
      }),
    ).rejects.toThrow(/cancelled by the MCP client/);
    // A later call goes through; the cancelled one never reached the viewer before it.
    await bridge.adminPlane.hub.call('clear_overlays', {}, 'allow', { timeoutMs: 5000 });
    expect(viewer.toolCalls()).toHaveLength(1);
    expect(viewer.received.filter((m) => m.type === 'tool_cancel')).toEqual([]);
    await viewer.close();
  });
});
