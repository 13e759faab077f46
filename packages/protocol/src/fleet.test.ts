// The fleet feed's wire schemas: what the bridge sends parses, a page's requests parse only in
// their exact shape (unknown fields, types and oversized frames refused), and approvals are
// listed with absolute times.
import { describe, expect, it } from 'vitest';
import {
  FleetStateMessage,
  MAX_FLEET_REQUEST_CHARS,
  parseFleetMessage,
  parseFleetRequest,
} from './fleet.js';

const desktop = {
  id: 'dsk_1',
  name: 'Agent 1',
  access: 'owner',
  in_charge: { id: 'per_1', name: 'Ada' },
  you_in_charge: true,
  mode: 'assist',
  control_window: true,
  ai_clients: [
    {
      client: { key: 'tok_1:claude', name: 'claude', token: 'laptop' },
      sessions: 1,
      last_call_at: 1_700_000_000_000,
      last_tool: 'click_at',
    },
  ],
  approvals: [
    {
      request_id: 'confirm_1',
      title: 'Click with the left button',
      asked_at: 1_700_000_000_000,
      deadline_at: 1_700_000_030_000,
    },
  ],
  error: null,
};

describe('fleet schemas', () => {
  it('parses the state the bridge sends', () => {
    const text = JSON.stringify({ type: 'fleet_state', desktops: [desktop] });
    const parsed = parseFleetMessage(text);
    expect(parsed.ok && parsed.message.type === 'fleet_state').toBe(true);
    expect(FleetStateMessage.safeParse({ type: 'fleet_state', desktops: [] }).success).toBe(true);
    expect(
      parseFleetMessage(JSON.stringify({ type: 'fleet_stopped', desktop_ids: ['dsk_1'] })).ok,
    ).toBe(true);
  });

  it('refuses a state with unknown fields or a bad mode', () => {
    expect(
      parseFleetMessage(
        JSON.stringify({ type: 'fleet_state', desktops: [{ ...desktop, secret: 'x' }] }),
      ).ok,
    ).toBe(false);
    expect(
      parseFleetMessage(
        JSON.stringify({ type: 'fleet_state', desktops: [{ ...desktop, mode: 'godmode' }] }),
      ).ok,
    ).toBe(false);
  });

  it("parses a page's requests only in their exact shape", () => {
    expect(parseFleetRequest('{"type":"fleet_stop_all"}').ok).toBe(true);
    expect(parseFleetRequest('{"type":"fleet_stop","desktop_id":"dsk_1"}').ok).toBe(true);
    expect(
      parseFleetRequest(
        '{"type":"fleet_answer","desktop_id":"dsk_1","request_id":"confirm_1","approved":true}',
      ).ok,
    ).toBe(true);
    for (const bad of [
      'not json',
      '{"type":"fleet_stop"}',
      '{"type":"fleet_stop","desktop_id":"../etc"}',
      '{"type":"fleet_stop_all","all":true}',
      '{"type":"fleet_answer","desktop_id":"dsk_1","request_id":"c","approved":"yes"}',
      '{"type":"stop_pressed"}',
      `{"type":"fleet_stop","desktop_id":"${'a'.repeat(MAX_FLEET_REQUEST_CHARS)}"}`,
    ]) {
      const parsed = parseFleetRequest(bad);
      expect(parsed.ok, bad).toBe(false);
      if (!parsed.ok) expect(parsed.error.length).toBeLessThanOrEqual(500);
    }
  });
});
