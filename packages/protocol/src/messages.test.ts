import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from './version.js';
import {
  BridgeToViewer,
  MAX_MESSAGE_CHARS,
  ViewerToBridge,
  encodeBridgeMessage,
  encodeViewerMessage,
  parseBridgeMessage,
  typedToolCall,
  parseViewerMessage,
} from './messages.js';
import { parseToolResult } from './toolParsing.js';
import { defaultPermissions } from './permissions.js';
import type { Overlay } from './tools/overlay.js';

const overlay: Overlay = {
  overlay_id: 'ov-1',
  bounds: { x: 1, y: 2, width: 3, height: 4 },
  color: '#ff000080',
  opacity: 0.5,
  label: 'Save',
  click_through: true,
  monitor_index: 0,
  created_at: 1_700_000_000_000,
};

const bridgeMessages: BridgeToViewer[] = [
  {
    type: 'hello',
    protocol_version: PROTOCOL_VERSION,
    viewer_id: 'v1',
    mode: 'assist',
    role: 'control',
    headless: false,
    permissions: defaultPermissions(),
  },
  {
    type: 'tool_call',
    id: 'call-1',
    name: 'click_at',
    args: { x: 1, y: 2, button: 'left', clicks: 1, require_user_confirmation: false },
    policy: 'confirm',
    deadline_ms: 30000,
  },
  {
    type: 'tool_call',
    id: 'call-2',
    name: 'take_screenshot',
    args: {
      full_screen: true,
      scale: 0.5,
      wait_for_stable_ms: 0,
      format: 'jpeg',
      quality: 80,
      include_overlays: false,
    },
    policy: 'allow',
    deadline_ms: 10000,
  },
  {
    type: 'tool_call',
    id: 'c3',
    name: 'get_display_info',
    args: {},
    policy: 'allow',
    deadline_ms: 1,
  },
  { type: 'tool_cancel', id: 'call-1', reason: 'timeout' },
  { type: 'mode_changed', mode: 'custom', metadata: { allow: ['type_text'] } },
  { type: 'mode_changed', mode: 'passive' },
  {
    type: 'approval_request',
    request_id: 'r1',
    from_mode: 'passive',
    to_mode: 'autopilot',
    requested_by: 'ai',
    deadline_ms: 60000,
  },
  { type: 'permissions_changed', permissions: { ...defaultPermissions(), clipboard_read: true } },
  {
    type: 'ai_clients',
    clients: [
      {
        client: { key: 'tok1:Claude Code', name: 'Claude Code', token: 'laptop' },
        sessions: 2,
        connected_since: 1_000,
        last_call_at: null,
      },
    ],
  },
  {
    type: 'approvals_waiting',
    requests: [
      { title: 'Click with the left button', deadline_in_ms: 29_000, request_id: 'confirm_x_1' },
      { title: 'Run after hand back? Type text', deadline_in_ms: 9_000 },
    ],
  },
  { type: 'approval_answer', request_id: 'confirm_x_1', approved: true },
  { type: 'stop', reason: 'The person pressed Stop in another window.' },
  { type: 'sync_state', seq: 7, overlays: [overlay] },
  { type: 'overlay_put', overlay, seq: 4 },
  { type: 'overlay_created', overlay, seq: 8 },
  { type: 'overlay_removed', overlay_id: 'ov-1', seq: 9 },
  { type: 'clear_overlays', seq: 10 },
  { type: 'request_sync' },
  { type: 'error', message: 'tool_result for unknown or finished call c9' },
  { type: 'event_interest', events: ['mouse_click', 'screen_change'] },
  { type: 'layout_changed', layout: null },
  {
    type: 'layout_changed',
    layout: {
      monitors: [
        { x: 0, y: 0, width: 1280, height: 800, label: 'left' },
        { x: 1280, y: 0, width: 1280, height: 800, screen: { width: 1280, height: 800 } },
      ],
      masks: [{ x: 10, y: 10, width: 100, height: 50, label: 'mail' }],
    },
  },
  { type: 'ai_action', action: { kind: 'click', x: 1500, y: 300, button: 'left', clicks: 2 } },
  {
    type: 'ai_action',
    action: { kind: 'drag', from: { x: 1, y: 2 }, to: { x: 30, y: 40 }, button: 'left' },
  },
  { type: 'take_over', on: true },
  {
    type: 'desktop_state',
    desktop: { id: 'dsk_1', name: 'Build box' },
    in_charge: { id: 'p_ada', name: 'Ada' },
    watchers: [
      { id: 'p_ada', name: 'Ada', access: 'owner' },
      { id: 'p_bob', name: 'Bob', access: 'control' },
    ],
    more_watchers: 0,
    you: {
      access: 'control',
      in_charge: false,
      may_take_charge: false,
      may_hand_over_to: [],
    },
  },
  {
    type: 'standing_permissions',
    permissions: [
      {
        id: 'standing_1',
        number: 1,
        tool: 'click_at',
        client: { key: 'tok_1:claude', name: 'claude', token: 'laptop' },
        expires_in_ms: 900_000,
        granted_by: 'Ada',
      },
      {
        id: 'standing_2',
        number: 2,
        tool: 'type_text',
        client: { key: 'tok_1:claude', name: 'claude', token: 'laptop' },
        expires_in_ms: null,
        granted_by: 'Ada',
      },
    ],
  },
  {
    type: 'tool_call',
    id: 'c4',
    name: 'click_at',
    args: { x: 1, y: 2, button: 'left', clicks: 1, require_user_confirmation: false },
    policy: 'allow',
    deadline_ms: 5000,
    client: { key: 'tok_1:claude', name: 'claude', token: 'laptop' },
    standing_id: 'standing_1',
  },
  {
    type: 'tool_call',
    id: 'c5',
    name: 'mouse_move',
    args: { x: 1, y: 2 },
    policy: 'allow',
    deadline_ms: 5000,
    receipt: `r${'0a'.repeat(16)}`,
  },
];

const viewerMessages: ViewerToBridge[] = [
  { type: 'tool_result', id: 'call-1', result: { success: true, was_confirmed: true } },
  { type: 'input_sent', id: 'c5', result: { success: true } },
  { type: 'tool_error', id: 'call-1', kind: 'permission_denied', message: 'The person declined.' },
  { type: 'tool_error', id: 'c2', kind: 'rate_limited', message: 'slow down', retry_after_ms: 500 },
  { type: 'approval', request_id: 'r1', approved: false },
  { type: 'overlay_created', overlay, seq: 1 },
  { type: 'overlay_removed', overlay_id: 'ov-1', seq: 2 },
  { type: 'clear_overlays', seq: 3 },
  { type: 'request_sync' },
  { type: 'sync_state', seq: 3, overlays: [] },
  { type: 'mode_set', mode: 'custom', metadata: { allow: ['type_text'], deny: [] } },
  { type: 'mode_set', mode: 'passive' },
  { type: 'stop_pressed' },
  {
    type: 'event',
    event: { type: 'mouse_click', at: 1700000000000, data: { x: 5, y: 6, button: 'right' } },
  },
  {
    type: 'event',
    event: {
      type: 'mouse_click',
      at: 1700000000000,
      data: { x: 5, y: 6, button: 'left', overlay_id: 'ov-1' },
    },
  },
  { type: 'event', event: { type: 'window_focus', at: 1, data: { focused: false } } },
  { type: 'approvals_waiting', requests: [] },
  { type: 'ai_action', action: { kind: 'type', text: 'hello\n' } },
  { type: 'take_over', on: false },
  { type: 'charge', action: 'take' },
  { type: 'charge', action: 'hand_over', to: 'p_bob' },
  { type: 'approval_answer', request_id: 'confirm_x_1', approved: false },
  { type: 'take_control' },
  { type: 'standing_grant', call_id: 'call_1_ab', minutes: 15 },
  { type: 'standing_grant', call_id: 'call_1_ab', minutes: null },
  { type: 'standing_revoke', id: 'standing_1' },
  {
    type: 'tool_error',
    id: 'c5',
    kind: 'permission_denied',
    message: 'No answer in time.',
    asked: 'timeout',
  },
];

describe('message round trips', () => {
  it.each(bridgeMessages.map((m) => [m.type, m] as const))('bridge→viewer %s', (_t, message) => {
    expect(parseBridgeMessage(encodeBridgeMessage(message))).toEqual({ ok: true, message });
  });
  it.each(viewerMessages.map((m) => [m.type, m] as const))('viewer→bridge %s', (_t, message) => {
    expect(parseViewerMessage(encodeViewerMessage(message))).toEqual({ ok: true, message });
  });

  it('every message type of each direction is covered above', () => {
    const bridgeTypes = new Set(bridgeMessages.map((m) => m.type));
    const viewerTypes = new Set(viewerMessages.map((m) => m.type));
    expect(bridgeTypes.size).toBe(BridgeToViewer.options.length);
    expect(viewerTypes.size).toBe(ViewerToBridge.options.length);
  });

  it('a tool_call gets its args defaults applied and typed by name', () => {
    const parsed = parseBridgeMessage(
      JSON.stringify({
        type: 'tool_call',
        id: 'c',
        name: 'press_key',
        args: { keys: 'ctrl+s' },
        policy: 'allow',
        deadline_ms: 5000,
      }),
    );
    expect(parsed.ok).toBe(true);
    if (parsed.ok && parsed.message.type === 'tool_call' && parsed.message.name === 'press_key') {
      expect(parsed.message.args).toEqual({
        keys: 'ctrl+s',
        repeat: 1,
        require_user_confirmation: false,
      });
    } else throw new Error('expected a press_key tool_call');
  });
});

describe('wrong shapes get readable errors', () => {
  it.each([
    ['not JSON', '{type:', 'bridge message is not valid JSON'],
    ['an array', '[1,2]', 'must be a JSON object with a "type" field'],
    ['null', 'null', 'must be a JSON object'],
    ['no type', '{"id":"x"}', 'has no string "type" field'],
    [
      'unknown type',
      '{"type":"tool_result"}',
      'unknown bridge message type "tool_result"; expected one of hello',
    ],
    [
      'wrong field type',
      '{"type":"hello","protocol_version":"1","viewer_id":"v","mode":"assist","role":"control"}',
      'invalid hello message: protocol_version: must be a number',
    ],
    [
      'unknown tool',
      '{"type":"tool_call","id":"c","name":"rm","args":{},"policy":"allow","deadline_ms":1}',
      'invalid tool_call message: name: must be one of draw_overlay',
    ],
    [
      'bad tool args',
      '{"type":"tool_call","id":"c","name":"click_at","args":{"x":-4,"y":1},"policy":"allow","deadline_ms":1}',
      'invalid tool_call message: args.x: must be ≥ 0',
    ],
    [
      'deny is never sent to a viewer',
      '{"type":"tool_call","id":"c","name":"get_display_info","args":{},"policy":"deny","deadline_ms":1}',
      'policy: must be one of allow, confirm',
    ],
    [
      'extra field',
      '{"type":"stop","reason":"x","force":true}',
      'invalid stop message: force: is not a known field',
    ],
  ])('bridge message: %s', (_why, raw, error) => {
    const parsed = parseBridgeMessage(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(error);
  });

  it.each([
    [
      'missing field',
      '{"type":"approval","request_id":"r"}',
      'invalid approval message: approved: is required',
    ],
    [
      'bad kind',
      '{"type":"tool_error","id":"c","kind":"oops","message":"m"}',
      'kind: must be one of invalid_parameters',
    ],
    [
      'bad event',
      '{"type":"event","event":{"type":"mouse_move","at":-1,"data":{"x":1,"y":1}}}',
      'event.at: must be ≥ 0',
    ],
    ['bridge-only type', '{"type":"hello"}', 'unknown viewer message type "hello"'],
    ['request_sync with payload', '{"type":"request_sync","seq":1}', 'seq: is not a known field'],
    [
      'approval_answer as a string',
      '{"type":"approval_answer","request_id":"confirm_1","approved":"yes"}',
      'invalid approval_answer message: approved: must be a boolean',
    ],
    [
      'approval_answer without a request',
      '{"type":"approval_answer","approved":true}',
      'request_id: is required',
    ],
    [
      'approval_answer with a hostile id',
      '{"type":"approval_answer","request_id":"<img>","approved":true}',
      'request_id: must contain only letters',
    ],
    [
      'standing_grant for longer than the panel offers',
      '{"type":"standing_grant","call_id":"call_1","minutes":600}',
      'minutes',
    ],
    [
      'standing_grant naming a tool instead of a call',
      '{"type":"standing_grant","call_id":"call_1","minutes":5,"tool":"click_at"}',
      'tool: is not a known field',
    ],
    [
      'tool_error with an unknown question ending',
      '{"type":"tool_error","id":"c1","kind":"cancelled","message":"x","asked":"maybe"}',
      'asked',
    ],
    [
      'take_control naming another window',
      '{"type":"take_control","viewer_id":"viewer_x"}',
      'viewer_id: is not a known field',
    ],
  ])('viewer message: %s', (_why, raw, error) => {
    const parsed = parseViewerMessage(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(error);
  });

  it('never quotes the text of a frame that is not JSON (the error is logged; it may be typed text)', () => {
    for (const raw of ['hunter2secret', 'x hunter2secret', '{"type":"event","x":hunter2secret}']) {
      const parsed = parseViewerMessage(raw);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) {
        expect(parsed.error).toMatch(/^viewer message is not valid JSON/);
        expect(parsed.error).not.toMatch(/hunter|secret/);
      }
    }
  });

  it('refuses oversized frames before parsing them, and non-string frames', () => {
    const huge = `{"type":"stop_pressed","pad":"${'x'.repeat(MAX_MESSAGE_CHARS)}"}`;
    const parsed = parseViewerMessage(huge);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain('over the 16777216 limit');
    const binary = parseViewerMessage(new Uint8Array([1, 2]));
    expect(binary).toEqual({
      ok: false,
      error: 'viewer message must be a JSON text frame, got object',
    });
  });
});

describe('parsers never throw', () => {
  const runs = { numRuns: 2000 };
  it('on random strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (raw) => {
        const b = parseBridgeMessage(raw);
        const v = parseViewerMessage(raw);
        for (const r of [b, v]) if (!r.ok) expect(typeof r.error).toBe('string');
      }),
      runs,
    );
  });

  it('on random JSON, including objects with a known type', () => {
    const types = [...new Set([...bridgeMessages, ...viewerMessages].map((m) => m.type))];
    const value = fc.oneof(
      fc.jsonValue(),
      fc
        .record({ type: fc.constantFrom(...types) }, { requiredKeys: [] })
        .chain((head) =>
          fc
            .dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }))
            .map((rest) => ({ ...rest, ...head })),
        ),
    );
    fc.assert(
      fc.property(value, (v) => {
        const raw = JSON.stringify(v);
        const b = parseBridgeMessage(raw);
        const w = parseViewerMessage(raw);
        for (const r of [b, w]) {
          if (!r.ok) expect(r.error.length).toBeGreaterThan(10);
        }
      }),
      runs,
    );
  });

  it('on deeply nested JSON', () => {
    const deep = `{"type":"tool_result","id":"c","result":{"a":${'['.repeat(100000)}${']'.repeat(100000)}}}`;
    expect(() => parseViewerMessage(deep)).not.toThrow();
  });
});

describe('parseToolResult', () => {
  it('accepts a valid viewer result and names the bad field of an invalid one', () => {
    expect(parseToolResult('click_at', { success: true, was_confirmed: false })).toEqual({
      ok: true,
      value: { success: true, was_confirmed: false },
    });
    const bad = parseToolResult('draw_overlay', {
      overlay_id: 'o',
      bounds: { x: 0, y: 0, width: 1 },
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error).toContain('invalid draw_overlay result');
      expect(bad.error).toContain('bounds.height: is required');
      expect(bad.error).toContain('monitor_index: is required');
    }
  });
});

describe('event_interest', () => {
  it('accepts an empty list and refuses duplicates and unknown types', () => {
    const parse = (events: unknown) =>
      parseBridgeMessage(JSON.stringify({ type: 'event_interest', events })).ok;
    expect(parse([])).toBe(true);
    expect(parse(['key_press', 'key_press'])).toBe(false);
    expect(parse(['scroll'])).toBe(false);
  });
});

describe('typedToolCall', () => {
  it('narrows args by name without changing the message', () => {
    const parsed = parseBridgeMessage(
      JSON.stringify({
        type: 'tool_call',
        id: 'c1',
        name: 'press_key',
        args: { keys: 'ctrl+c' },
        policy: 'allow',
        deadline_ms: 1000,
      }),
    );
    if (!parsed.ok || parsed.message.type !== 'tool_call') throw new Error('expected a tool_call');
    const call = typedToolCall(parsed.message);
    expect(call).toBe(parsed.message);
    // Compiles only because `name` narrows `args` to press_key's parsed args (defaults applied).
    expect(call.name === 'press_key' ? call.args.repeat : -1).toBe(1);
  });
});
