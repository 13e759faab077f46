// Input tools (click_at, type_text, press_key, scroll, drag, mouse_move) as Guacamole
// instructions through the live client: `mouse` via sendMouseState in DESKTOP pixels (the
// display scale is never applied: tool coordinates already are desktop pixels) and `key` via
// sendKeyEvent with X11 keysyms. Paced steps sleep on the call's signal, so Stop or a cancel
// ends a sequence at once; whatever is held down (buttons, modifiers) is released on the way out.
//
// Horizontal scrolling: Guacamole's mouse mask has only wheel up (8) and down (16), so left and
// right are sent as Shift + wheel up / down, which GTK, Qt and browsers read as horizontal.
import Guacamole from 'guacamole-common-js';
import {
  KEY_NAME_KEYSYMS,
  MODIFIER_KEYSYMS,
  ProtocolError,
  comboKeysyms,
  monitorToDesktop,
  parseKeyCombo,
  textKeysyms,
  type Monitor,
  type MouseButton,
  type ToolArgs,
  type ToolViewerResult,
} from '@overlay-companion/protocol';
import { resolveMonitor, type DesktopSize } from '../monitors.js';
import { throwIfCancelled, type Sleep } from '../sleep.js';

/** The part of Guacamole.Client input needs (a recording fake implements it in tests). */
export type InputClient = Pick<Guacamole.Client, 'sendMouseState' | 'sendKeyEvent'>;

export interface InputDeps {
  client: InputClient;
  desktop: DesktopSize;
  monitors: readonly Monitor[];
  sleep: Sleep;
  signal: AbortSignal;
  /** True when the person approved this call in this viewer. */
  confirmed: boolean;
}

/** Gap between the clicks of a double/triple click: well inside any double-click time. */
export const CLICK_GAP_MS = 50;
/** Gap between repeats of a key combo, so auto-repeat filters do not merge them. */
export const KEY_REPEAT_GAP_MS = 30;
/** Pointer updates during a drag: about one per display frame. */
export const DRAG_STEP_MS = 16;

interface Buttons {
  left?: boolean;
  middle?: boolean;
  right?: boolean;
  up?: boolean;
  down?: boolean;
}

function pointer(client: InputClient, x: number, y: number, b: Buttons = {}): void {
  client.sendMouseState(
    new Guacamole.Mouse.State(
      x,
      y,
      b.left === true,
      b.middle === true,
      b.right === true,
      b.up === true,
      b.down === true,
    ),
  );
}

function buttonState(button: MouseButton): Buttons {
  return { [button]: true };
}

/**
 * A point of a tool call in desktop pixels: monitor-relative when the call named a monitor,
 * checked to lie on the desktop.
 */
function onDesktop(
  deps: InputDeps,
  point: { x: number; y: number },
  monitorIndex: number | undefined,
  what = 'x/y',
): { x: number; y: number } {
  const at = monitorToDesktop(
    { x: point.x, y: point.y },
    resolveMonitor(deps.monitors, monitorIndex),
  );
  checkOnDesktop(deps.desktop, at.x, at.y, what);
  return at;
}

/** The pause an action_timing_hint asks for before (or after) acting; nothing without one. */
async function pause(
  ms: number | undefined,
  { sleep, signal }: Pick<InputDeps, 'sleep' | 'signal'>,
): Promise<void> {
  if (ms !== undefined && ms > 0) await sleep(ms, signal);
  throwIfCancelled(signal);
}

function checkOnDesktop(desktop: DesktopSize, x: number, y: number, what = 'x/y'): void {
  if (x >= desktop.width || y >= desktop.height) {
    throw new ProtocolError(
      'invalid_parameters',
      `${what}: ${x},${y} is outside the ${desktop.width}×${desktop.height} desktop; use coordinates from get_display_info or a screenshot.`,
    );
  }
}

export async function clickAt(
  args: ToolArgs<'click_at'>,
  deps: InputDeps,
): Promise<ToolViewerResult<'click_at'>> {
  const { client, sleep, signal } = deps;
  const at = onDesktop(deps, args, args.monitor_index);
  await pause(args.action_timing_hint?.delay_before_ms, deps);
  // Move first: some toolkits only take a press at the position they saw the pointer arrive.
  pointer(client, at.x, at.y);
  for (let i = 0; i < args.clicks; i++) {
    if (i > 0) await sleep(CLICK_GAP_MS, signal);
    pointer(client, at.x, at.y, buttonState(args.button));
    pointer(client, at.x, at.y);
  }
  await pause(args.action_timing_hint?.delay_after_ms, deps);
  return { success: true, was_confirmed: deps.confirmed };
}

/** Milliseconds per character at `wpm` words per minute (a word is 5 characters). */
export function typingIntervalMs(wpm: number): number {
  return 60_000 / (wpm * 5);
}

export async function typeText(
  args: ToolArgs<'type_text'>,
  deps: InputDeps,
): Promise<ToolViewerResult<'type_text'>> {
  const { client, sleep, signal } = deps;
  const keys = textKeysyms(args.text);
  if (!keys.ok) {
    throw new ProtocolError(
      'invalid_parameters',
      `text: character U+${keys.codePoint.toString(16).toUpperCase()} at index ${keys.index} cannot be typed.`,
    );
  }
  await pause(args.action_timing_hint?.delay_before_ms, deps);
  const interval = typingIntervalMs(args.typing_speed_wpm);
  for (const [i, keysym] of keys.keysyms.entries()) {
    if (i > 0) await sleep(interval, signal);
    throwIfCancelled(signal);
    client.sendKeyEvent(1, keysym);
    client.sendKeyEvent(0, keysym);
  }
  await pause(args.action_timing_hint?.delay_after_ms, deps);
  // Characters as the model counts them (code points); "\r\n" is two of them and one Return.
  return { success: true, typed_length: [...args.text].length };
}

export async function pressKey(
  args: ToolArgs<'press_key'>,
  deps: InputDeps,
): Promise<ToolViewerResult<'press_key'>> {
  const { client, sleep, signal } = deps;
  let keysyms: number[];
  try {
    keysyms = comboKeysyms(parseKeyCombo(args.keys));
  } catch (err) {
    throw new ProtocolError(
      'invalid_parameters',
      `keys: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  for (let i = 0; i < args.repeat; i++) {
    if (i > 0) await sleep(KEY_REPEAT_GAP_MS, signal);
    throwIfCancelled(signal);
    for (const keysym of keysyms) client.sendKeyEvent(1, keysym);
    for (const keysym of [...keysyms].reverse()) client.sendKeyEvent(0, keysym);
  }
  return { success: true, keysyms };
}

export async function scroll(
  args: ToolArgs<'scroll'>,
  deps: InputDeps,
): Promise<ToolViewerResult<'scroll'>> {
  const { client, sleep, signal } = deps;
  const at = onDesktop(deps, args, args.monitor_index);
  const horizontal = args.direction === 'left' || args.direction === 'right';
  const wheel: Buttons =
    args.direction === 'up' || args.direction === 'left' ? { up: true } : { down: true };
  const shift = MODIFIER_KEYSYMS.shift;
  pointer(client, at.x, at.y);
  if (horizontal) client.sendKeyEvent(1, shift);
  try {
    for (let i = 0; i < args.amount; i++) {
      if (i > 0) await sleep(CLICK_GAP_MS, signal);
      // One wheel step is a press and release of the wheel "button" (X buttons 4/5).
      pointer(client, at.x, at.y, wheel);
      pointer(client, at.x, at.y);
    }
  } finally {
    if (horizontal) client.sendKeyEvent(0, shift);
  }
  return { success: true };
}

/** Points a drag passes through after `from`: evenly spaced, ending exactly at `to`. */
export function dragPath(
  from: { x: number; y: number },
  to: { x: number; y: number },
  durationMs: number,
): { x: number; y: number }[] {
  const steps = Math.max(1, Math.round(durationMs / DRAG_STEP_MS));
  const path: { x: number; y: number }[] = [];
  for (let i = 1; i <= steps; i++) {
    path.push({
      x: Math.round(from.x + ((to.x - from.x) * i) / steps),
      y: Math.round(from.y + ((to.y - from.y) * i) / steps),
    });
  }
  return path;
}

export async function drag(
  args: ToolArgs<'drag'>,
  deps: InputDeps,
): Promise<ToolViewerResult<'drag'>> {
  const { client, sleep, signal } = deps;
  const from = onDesktop(deps, args.from, args.monitor_index, 'from');
  const to = onDesktop(deps, args.to, args.monitor_index, 'to');
  const held = buttonState(args.button);
  const path = dragPath(from, to, args.duration_ms);
  const stepMs = path.length > 0 ? args.duration_ms / path.length : 0;
  pointer(client, from.x, from.y);
  pointer(client, from.x, from.y, held);
  let last = from;
  try {
    for (const point of path) {
      await sleep(stepMs, signal);
      pointer(client, point.x, point.y, held);
      last = point;
    }
  } finally {
    // Cancelled or not, never leave the button down on the desktop.
    pointer(client, last.x, last.y);
  }
  return { success: true };
}

export function mouseMove(
  args: ToolArgs<'mouse_move'>,
  deps: InputDeps,
): ToolViewerResult<'mouse_move'> {
  const at = onDesktop(deps, args, args.monitor_index);
  throwIfCancelled(deps.signal);
  pointer(deps.client, at.x, at.y);
  return { success: true };
}

/** Keysym of Return, exported for tests that type multi-line text. */
export const RETURN_KEYSYM = KEY_NAME_KEYSYMS.Return ?? 0xff0d;
