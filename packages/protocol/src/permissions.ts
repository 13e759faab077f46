// What each person lets an AI do on their behalf, beyond the mode: the permission toggles, their
// defaults (the seed: "clipboard access requires explicit permission" — clipboard read and the
// person's key presses start off), the words the settings page and denial messages use, and
// which permission each tool and each event type needs. The policy (policy.ts) reads this table;
// nothing else decides which toggle governs what.
import { z } from 'zod';
import type { EventType } from './tools/events.js';
import type { ToolName } from './tools/names.js';
import { toolDefinitions } from './tools/registry.js';

export const PERMISSION_NAMES = [
  'screenshots',
  'input_actions',
  'clipboard_write',
  'clipboard_read',
  'read_pointer_events',
  'read_key_events',
] as const;
export type PermissionName = (typeof PERMISSION_NAMES)[number];

/** Privacy choices about the audit log (not AI powers, but the person's, kept with them). */
export const AUDIT_PREFERENCE_NAMES = ['audit_typed_text', 'audit_screenshots'] as const;
export type AuditPreferenceName = (typeof AUDIT_PREFERENCE_NAMES)[number];

/**
 * How the person may be asked: approving through the MCP client by elicitation, for the
 * headless viewer when none of the person's windows is open — off unless the person turns it on.
 */
export const APPROVAL_PREFERENCE_NAMES = ['approvals_through_client'] as const;
export type ApprovalPreferenceName = (typeof APPROVAL_PREFERENCE_NAMES)[number];

export type PersonSettingName = PermissionName | AuditPreferenceName | ApprovalPreferenceName;

export const PERMISSION_DEFAULTS: Readonly<Record<PersonSettingName, boolean>> = {
  screenshots: true,
  input_actions: true,
  clipboard_write: true,
  clipboard_read: false,
  read_pointer_events: true,
  read_key_events: false,
  audit_typed_text: false,
  audit_screenshots: false,
  approvals_through_client: false,
};

/** The label on the settings page; denial messages quote it so the person can find the toggle. */
export const PERMISSION_LABELS: Readonly<Record<PersonSettingName, string>> = {
  screenshots: 'Let the AI see the screen (screenshots)',
  input_actions: 'Let the AI click, type and press keys',
  clipboard_write: 'Let the AI put text on the clipboard',
  clipboard_read: 'Let the AI read the clipboard',
  read_pointer_events: 'Let the AI follow my pointer and clicks',
  read_key_events: 'Let the AI read my key presses',
  audit_typed_text: 'Keep typed text and clipboard contents in the audit log',
  audit_screenshots: 'Keep screenshots in the audit log',
  approvals_through_client:
    'Let my AI client ask me for approvals when no window of mine is open (never for raising the mode)',
};

const toggle = (name: PersonSettingName) =>
  z.boolean().describe(`${PERMISSION_LABELS[name]} (default ${PERMISSION_DEFAULTS[name]}).`);

/** Every toggle of one person, as stored and as sent to their viewers. */
export const Permissions = z.strictObject({
  screenshots: toggle('screenshots'),
  input_actions: toggle('input_actions'),
  clipboard_write: toggle('clipboard_write'),
  clipboard_read: toggle('clipboard_read'),
  read_pointer_events: toggle('read_pointer_events'),
  read_key_events: toggle('read_key_events'),
  audit_typed_text: toggle('audit_typed_text'),
  audit_screenshots: toggle('audit_screenshots'),
  approvals_through_client: toggle('approvals_through_client'),
});
export type Permissions = z.infer<typeof Permissions>;

/** A change to some toggles (PUT /api/me/permissions). */
export const PermissionsPatch = Permissions.partial();
export type PermissionsPatch = z.infer<typeof PermissionsPatch>;

export function defaultPermissions(): Permissions {
  return { ...PERMISSION_DEFAULTS };
}

/**
 * The permission each tool needs, if any, from its definition (`permission`). Overlays, display
 * info, the mode and event bookkeeping need none; reading events is checked per event type
 * (EVENT_PERMISSIONS) at subscribe time and again for every event delivered.
 */
export const TOOL_PERMISSIONS: Readonly<Partial<Record<ToolName, PermissionName>>> =
  Object.fromEntries(
    Object.values(toolDefinitions).flatMap((d) =>
      'permission' in d && d.permission !== undefined ? [[d.name, d.permission]] : [],
    ),
  );

/** The permission needed to receive each kind of the person's UI events. */
export const EVENT_PERMISSIONS: Readonly<Record<EventType, PermissionName>> = {
  mouse_move: 'read_pointer_events',
  mouse_click: 'read_pointer_events',
  window_focus: 'read_pointer_events',
  key_press: 'read_key_events',
  screen_change: 'screenshots',
};

/**
 * Whether the AI may receive one event of `type` now: the one rule for events, asked when a
 * subscription is made, when the viewer is told what to stream, and for every event delivered.
 * Unknown toggles (not loaded yet) refuse.
 */
export function eventAllowed(permissions: Permissions | undefined, type: EventType): boolean {
  return permissions?.[EVENT_PERMISSIONS[type]] === true;
}

/** The event types `permissions` lets an AI receive, in the order given. */
export function permittedEventTypes(
  types: Iterable<EventType>,
  permissions: Permissions,
): EventType[] {
  return [...types].filter((type) => eventAllowed(permissions, type));
}

/** "… is off: turn on “Let the AI read the clipboard” in Settings." */
export function permissionDeniedMessage(what: string, permission: PermissionName): string {
  return `${what} is not allowed: the person has turned off "${PERMISSION_LABELS[permission]}". They can turn it on in the viewer under Settings → Permissions (/settings); you cannot.`;
}
