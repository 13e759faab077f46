// The permission table: what starts on and off, that every toggle has words for the settings
// page, that every event type and every tool that touches the desktop or reads the person is
// governed by a toggle, and that events are filtered by them.
import { describe, expect, it } from 'vitest';
import {
  APPROVAL_PREFERENCE_NAMES,
  AUDIT_PREFERENCE_NAMES,
  EVENT_PERMISSIONS,
  PERMISSION_DEFAULTS,
  PERMISSION_LABELS,
  PERMISSION_NAMES,
  Permissions,
  TOOL_PERMISSIONS,
  defaultPermissions,
  permittedEventTypes,
} from './permissions.js';
import { EVENT_TYPES } from './tools/events.js';
import { INPUT_POLICY_TOOLS } from './tools/names.js';

describe('permissions', () => {
  it('start with clipboard read, key presses, both audit keep-options and client approvals off, the rest on', () => {
    expect(PERMISSION_DEFAULTS).toEqual({
      screenshots: true,
      input_actions: true,
      clipboard_write: true,
      clipboard_read: false,
      read_pointer_events: true,
      read_key_events: false,
      audit_typed_text: false,
      audit_screenshots: false,
      approvals_through_client: false,
    });
    expect(Permissions.parse(defaultPermissions())).toEqual(PERMISSION_DEFAULTS);
  });

  it('has a label for every toggle, and the schema knows exactly those toggles', () => {
    const names = [
      ...PERMISSION_NAMES,
      ...AUDIT_PREFERENCE_NAMES,
      ...APPROVAL_PREFERENCE_NAMES,
    ].sort();
    expect(Object.keys(PERMISSION_LABELS).sort()).toEqual(names);
    expect(Object.keys(Permissions.shape).sort()).toEqual(names);
    expect(Permissions.safeParse({ ...defaultPermissions(), everything: true }).success).toBe(
      false,
    );
  });

  it('governs every input tool and every screen reader by a toggle', () => {
    for (const tool of INPUT_POLICY_TOOLS) expect(TOOL_PERMISSIONS[tool], tool).toBeDefined();
    for (const tool of [
      'take_screenshot',
      'wait_for_screen',
      'set_screenshot_frequency',
    ] as const) {
      expect(TOOL_PERMISSIONS[tool], tool).toBe('screenshots');
    }
    expect(TOOL_PERMISSIONS.get_clipboard).toBe('clipboard_read');
    expect(TOOL_PERMISSIONS.set_clipboard).toBe('clipboard_write');
  });

  it('maps every event type to a toggle and filters by it', () => {
    expect(Object.keys(EVENT_PERMISSIONS).sort()).toEqual([...EVENT_TYPES].sort());
    expect(EVENT_PERMISSIONS.key_press).toBe('read_key_events');
    expect(permittedEventTypes(EVENT_TYPES, defaultPermissions())).not.toContain('key_press');
    expect(
      permittedEventTypes(['key_press', 'mouse_click'], {
        ...defaultPermissions(),
        read_key_events: true,
      }),
    ).toEqual(['key_press', 'mouse_click']);
  });
});
