// Runs one tool call that the policy gate let through: an exhaustive switch on the tool name
// (a new tool in the protocol fails to compile here until it is handled). Overlay tools and
// get_display_info answer synchronously — no promise, so the answer leaves before any render.
// Tools the bridge runs itself (set_mode, set_screenshot_frequency, the event tools) are refused
// with a system_error that says so.
import {
  ProtocolError,
  monitorToDesktop,
  type Monitor,
  type TypedToolCall,
  type ToolName,
  type ToolViewerResult,
} from '@overlay-companion/protocol';
import type Guacamole from 'guacamole-common-js';
import type { ConfirmDetails } from '../store/confirmations.js';
import type { Viewport } from '../viewport/viewport.js';
import type { ClipboardWatch } from './handlers/clipboard.js';
import {
  clickAt,
  drag,
  mouseMove,
  pressKey,
  scroll,
  typeText,
  type InputDeps,
} from './handlers/input.js';
import type { OverlayService } from './handlers/overlay.js';
import type { DesktopSize } from './monitors.js';
import { takeScreenshot } from './screen/capture.js';
import type { FrameWatch } from './screen/frameWatch.js';
import { waitForScreen } from './screen/waitForScreen.js';
import type { Sleep } from './sleep.js';

export interface ToolEnv {
  signal: AbortSignal;
  /** The person approved this call in this viewer. */
  confirmed: boolean;
  overlays: OverlayService;
  clipboard: ClipboardWatch;
  frames: FrameWatch;
  /** The connected client; throws a ProtocolError saying what to do when there is none. */
  client: () => Guacamole.Client;
  /** The desktop size; throws when it is not known yet. */
  desktop: () => DesktopSize;
  monitors: () => Monitor[];
  viewport: () => Viewport;
  sleep: Sleep;
}

export type AnyViewerResult = ToolViewerResult<ToolName>;

function input(env: ToolEnv): InputDeps {
  return {
    client: env.client(),
    desktop: env.desktop(),
    monitors: env.monitors(),
    sleep: env.sleep,
    signal: env.signal,
    confirmed: env.confirmed,
  };
}

function bridgeOnly(name: ToolName): never {
  throw new ProtocolError(
    'system_error',
    `${name} is run by the bridge, not relayed to the viewer; the bridge sent it here by mistake. Report this as a bridge bug.`,
  );
}

export function runTool(
  call: TypedToolCall,
  env: ToolEnv,
): AnyViewerResult | Promise<AnyViewerResult> {
  switch (call.name) {
    case 'draw_overlay':
      return env.overlays.draw(call.args);
    case 'remove_overlay':
      return env.overlays.remove(call.args);
    case 'clear_overlays':
      return env.overlays.clear();
    case 'batch_overlay':
      return env.overlays.batch(call.args, env.signal);
    case 'get_display_info': {
      const desktop = env.desktop();
      return {
        desktop: { width: desktop.width, height: desktop.height },
        monitors: env.monitors(),
      };
    }
    case 'take_screenshot':
      return takeScreenshot(call.args, {
        client: env.client(),
        desktop: env.desktop(),
        monitors: env.monitors(),
        viewport: env.viewport(),
        overlays: env.overlays.snapshot().overlays,
        frames: env.frames,
        signal: env.signal,
      });
    case 'wait_for_screen': {
      env.client();
      const a = call.args;
      return waitForScreen(
        env.frames,
        { until: a.until, region: a.region, timeoutMs: a.timeout_ms, stableMs: a.stable_ms },
        env.signal,
      ).then((o) => ({ satisfied: o.satisfied, waited_ms: o.waitedMs }));
    }
    case 'click_at':
      return clickAt(call.args, input(env));
    case 'type_text':
      return typeText(call.args, input(env));
    case 'press_key':
      return pressKey(call.args, input(env));
    case 'scroll':
      return scroll(call.args, input(env));
    case 'drag':
      return drag(call.args, input(env));
    case 'mouse_move':
      return mouseMove(call.args, input(env));
    case 'get_clipboard':
      env.client();
      return env.clipboard.get();
    case 'set_clipboard':
      return env.clipboard.set(env.client(), call.args);
    case 'set_mode':
    case 'set_screenshot_frequency':
    case 'subscribe_events':
    case 'unsubscribe_events':
    case 'get_events':
      return bridgeOnly(call.name);
    default: {
      const unknown: never = call;
      void unknown;
      throw new ProtocolError('system_error', 'The viewer does not know this tool.');
    }
  }
}

/** What the confirmation panel shows for a call: exactly what will happen, in desktop pixels. */
export function confirmDetails(call: TypedToolCall, monitors: readonly Monitor[]): ConfirmDetails {
  switch (call.name) {
    case 'click_at': {
      const a = call.args;
      const monitor = monitors.find((m) => m.index === a.monitor_index);
      const p = monitorToDesktop({ x: a.x, y: a.y }, monitor);
      return { kind: 'click', x: p.x, y: p.y, button: a.button, clicks: a.clicks };
    }
    case 'drag':
      return { kind: 'drag', from: call.args.from, to: call.args.to, button: call.args.button };
    case 'scroll':
      return { kind: 'scroll', ...call.args };
    case 'mouse_move':
      return { kind: 'move', x: call.args.x, y: call.args.y };
    case 'type_text':
      return { kind: 'type', text: call.args.text };
    case 'press_key':
      return { kind: 'keys', keys: call.args.keys, repeat: call.args.repeat };
    case 'get_clipboard':
      return { kind: 'clipboard_read' };
    case 'set_clipboard':
      return { kind: 'clipboard_write', text: call.args.text };
    default:
      return { kind: 'other', tool: call.name, args: JSON.stringify(call.args).slice(0, 2000) };
  }
}
