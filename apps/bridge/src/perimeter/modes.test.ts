// Attacks on the mode from a viewer socket: a window (or a script holding a ticket) sending
// mode_set to give the AI more power must get it only after the person approves in their
// control window, and the bridge's headless viewer — no person behind it — can never raise the
// mode at all. Lowering stays instant from any window. Real bridge, SCRIPTED VIEWERS (test ws
// clients speaking the viewer protocol) with real tickets.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { nextOf, ofType, settle } from './testing/viewers.js';

let bridge: TestBridge;
const viewers: ScriptedViewer[] = [];

beforeAll(async () => {
  bridge = await startTestBridge();
});

afterEach(async () => {
  for (const viewer of viewers.splice(0)) await viewer.close();
  bridge.adminPlane.mode.set('assist', undefined, 'person');
});

afterAll(async () => {
  await bridge.close();
});

async function open(options: { headless?: boolean } = {}): Promise<ScriptedViewer> {
  const viewer = await ScriptedViewer.connect(bridge, options);
  viewers.push(viewer);
  return viewer;
}

describe('mode_set from a viewer socket', () => {
  it("raises the mode only after the person's own approval in their control window", async () => {
    const control = await open();
    const mirror = await open();
    expect(mirror.hello.role).toBe('mirror');

    const asked = nextOf(control, 'approval_request');
    mirror.send({ type: 'mode_set', mode: 'autopilot' });
    const first = await asked();
    // Asked, not applied: and asked in the control window, not in the window that asked.
    expect(bridge.adminPlane.mode.mode).toBe('assist');
    expect(ofType(mirror, 'approval_request')).toEqual([]);
    expect(first).toMatchObject({
      from_mode: 'assist',
      to_mode: 'autopilot',
      requested_by: 'person',
    });

    // The window that asked cannot answer its own request.
    const refused = nextOf(mirror, 'error');
    mirror.send({ type: 'approval', request_id: first.request_id, approved: true });
    expect((await refused()).message).toMatch(/unknown or expired request/);
    expect(bridge.adminPlane.mode.mode).toBe('assist');

    // Declined: nothing changes.
    control.send({ type: 'approval', request_id: first.request_id, approved: false });
    await settle(control);
    expect(bridge.adminPlane.mode.mode).toBe('assist');

    // Asked again and approved by the person: now it applies.
    const askedAgain = nextOf(control, 'approval_request');
    mirror.send({ type: 'mode_set', mode: 'autopilot' });
    const second = await askedAgain();
    expect(bridge.adminPlane.mode.mode).toBe('assist');
    control.send({ type: 'approval', request_id: second.request_id, approved: true });
    await waitUntil(() => bridge.adminPlane.mode.mode === 'autopilot');
  });

  it('never raises the mode from a headless viewer, asks nobody, and still lets it lower', async () => {
    const person = await open();
    const headless = await open({ headless: true });
    expect(headless.hello.headless).toBe(true);

    for (const mode of ['autopilot', 'composing', 'custom'] as const) {
      headless.send({
        type: 'mode_set',
        mode,
        ...(mode === 'custom' ? { metadata: { allow: ['click_at'] } } : {}),
      });
    }
    await waitUntil(() => ofType(headless, 'error').length === 3);
    expect(ofType(headless, 'error')[0]?.message).toMatch(/headless viewer cannot raise/);
    await settle(person);
    expect(bridge.adminPlane.mode.mode).toBe('assist');
    expect(ofType(person, 'approval_request')).toEqual([]);
    expect(ofType(headless, 'approval_request')).toEqual([]);

    // The headless viewer as the control window: still no raise, and no approval it could answer.
    await person.close();
    await headless.waitFor((m) => m.type === 'hello' && m.role === 'control');
    headless.send({ type: 'mode_set', mode: 'autopilot' });
    await waitUntil(() => ofType(headless, 'error').length === 4);
    expect(ofType(headless, 'approval_request')).toEqual([]);
    expect(bridge.adminPlane.mode.mode).toBe('assist');

    headless.send({ type: 'mode_set', mode: 'passive' });
    await waitUntil(() => bridge.adminPlane.mode.mode === 'passive');
  });
});
