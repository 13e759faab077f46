// Runs one tool call that the policy gate let through, through the handler map below (a new
// viewer tool in the protocol fails to compile here until it is handled; bridge tools never
// reach a viewer). Overlay tools and get_display_info answer synchronously — no promise, so the
// answer leaves before any render.
import {
  ProtocolError,
  monitorToDesktop,
  type Monitor,
  type PrivacyMask,
  type ToolArgs,
  type ToolName,
  type ToolViewerResult,
  type TypedToolCall,
  type ViewerToolName,
} from '@overlay-companion/protocol';
import type Guacamole from 'guacamole-common-js';
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
import { resolveMonitor, type DesktopSize } from './monitors.js';
import { takeScreenshot } from './screen/capture.js';
import type { FrameWatch } from './screen/frameWatch.js';
import { waitForScreen } from './screen/waitForScreen.js';
import type { ShownLater } from './shownLater.js';
import type { Sleep } from './sleep.js';

/** How AI pointer input reaches a client when its showing is held (display/pointerInput.ts). */
export interface PointerOutput {
  /** Sends the pointer state to the desktop without moving the local cursor. */
  send(client: Guacamole.Client, state: Guacamole.Mouse.State): void;
  /** Moves the client's local cursor to desktop pixel x, y. */
  cursor(client: Guacamole.Client, x: number, y: number): void;
}

export interface ToolEnv {
  signal: AbortSignal;
  /** The person approved this call in this viewer. */
  confirmed: boolean;
  overlays: OverlayService;
  clipboard: ClipboardWatch;
  frames: FrameWatch;
  /** The connected client; throws a ProtocolError saying what to do when there is none. */
  client: () => Guacamole.Client;
  /**
   * Resolves once the input sent on `client` so far has reached the desktop (inputReceipts.ts);
   * throws a ProtocolError when it did not or cannot be known in time.
   */
  delivered: (client: Guacamole.Client, signal: AbortSignal, token?: string) => Promise<void>;
  /**
   * The call's receipt token (tool_call.receipt): its receipt is asked under it, and `sent` tells
   * the bridge, as the input leaves, the answer the call gets once it is delivered (input_sent).
   */
  receipt?: { token: string; sent: (result: AnyViewerResult) => void } | undefined;
  /**
   * The call's showing, held until its input is confirmed (shownLater.ts; runShown.ts makes it):
   * the local cursor moves to the AI's pointer then. Without it, or without `pointer`, input goes
   * through the client's own sendMouseState, which moves the cursor at once.
   */
  shown?: ShownLater | undefined;
  pointer?: PointerOutput | undefined;
  /** The desktop size; throws when it is not known yet. */
  desktop: () => DesktopSize;
  monitors: () => Monitor[];
  /** The person's privacy masks (desktop pixels): black in everything the AI sees. */
  masks: () => readonly PrivacyMask[];
  viewport: () => Viewport;
  sleep: Sleep;
  /** Teach mode: asks the person to point things out (request_annotation). */
  annotate: (
    args: ToolArgs<'request_annotation'>,
    signal: AbortSignal,
  ) => Promise<ToolViewerResult<'request_annotation'>>;
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

/**
 * The client as the input handlers see it while the call's showing is held: pointer states leave
 * at once, and the local cursor moves to the last of them when the call is shown (and at once
 * after that, e.g. through the rest of a long drag).
 */
function cursorShownLater(env: ToolEnv, client: Guacamole.Client): InputDeps['client'] {
  const { shown, pointer } = env;
  if (shown === undefined || pointer === undefined) return client;
  let last: { x: number; y: number } | undefined;
  return {
    sendKeyEvent: (pressed, keysym) => client.sendKeyEvent(pressed, keysym),
    sendMouseState: (state) => {
      pointer.send(client, state);
      const at = { x: Math.floor(state.x), y: Math.floor(state.y) };
      if (!shown.held) {
        pointer.cursor(client, at.x, at.y);
        return;
      }
      const queued = last !== undefined;
      last = at;
      if (queued) return;
      shown.show(() => {
        if (last !== undefined) pointer.cursor(client, last.x, last.y);
      });
    },
  };
}

/**
 * Runs an input tool, then holds its result until the desktop has the input: an input tool
 * reports ok only once its input got there (or fails saying it did not).
 */
function delivered<R>(
  env: ToolEnv,
  act: (deps: InputDeps, client: Guacamole.Client) => R | Promise<R>,
): Promise<R> {
  try {
    // The receipt must travel the tunnel the input went on, even if the viewer reconnects
    // meanwhile.
    const client = env.client();
    const acted = act({ ...input(env), client: cursorShownLater(env, client) }, client);
    // The receipt request goes first, right behind the input; then the bridge hears the answer
    // the call gets once it is delivered, so it can settle the call from the receipt itself.
    const receipted = (result: R): Promise<R> => {
      const wait = env.delivered(client, env.signal, env.receipt?.token);
      env.receipt?.sent(result as AnyViewerResult);
      return wait.then(() => result);
    };
    if (acted instanceof Promise) return acted.then(receipted);
    // An input sent at once (a move, a click's press and release): the receipt request leaves in
    // the same task, right behind it, before anything else the page does for the call (showing
    // it, telling the other windows) — the answer is on the call's critical path.
    return receipted(acted);
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

type Handler<N extends ViewerToolName> = (
  args: ToolArgs<N>,
  env: ToolEnv,
) => ToolViewerResult<N> | Promise<ToolViewerResult<N>>;

/**
 * One handler per tool whose definition runs in the viewer. A mapped type over the protocol's
 * viewer tools: a new viewer tool does not compile until it is handled here, and bridge tools
 * cannot be (they never reach a viewer). dispatch.test.ts checks the same at run time.
 */
export const viewerHandlers: { readonly [N in ViewerToolName]: Handler<N> } = {
  draw_overlay: (args, env) => env.overlays.draw(args),
  remove_overlay: (args, env) => env.overlays.remove(args),
  clear_overlays: (_args, env) => env.overlays.clear(),
  batch_overlay: (args, env) => env.overlays.batch(args, env.signal),
  get_display_info: (_args, env) => {
    const desktop = env.desktop();
    return {
      desktop: { width: desktop.width, height: desktop.height },
      monitors: env.monitors(),
    };
  },
  take_screenshot: (args, env) =>
    takeScreenshot(args, {
      client: env.client(),
      desktop: env.desktop(),
      monitors: env.monitors(),
      masks: env.masks(),
      viewport: env.viewport(),
      overlays: env.overlays.snapshot().overlays,
      frames: env.frames,
      signal: env.signal,
    }),
  wait_for_screen: (a, env) => {
    env.client();
    // Monitor-relative region, else the whole monitor, else the whole desktop.
    const monitor = resolveMonitor(env.monitors(), a.monitor_index);
    const region = a.region === undefined ? monitor : monitorToDesktop(a.region, monitor);
    return waitForScreen(
      env.frames,
      { until: a.until, region, timeoutMs: a.timeout_ms, stableMs: a.stable_ms },
      env.signal,
    ).then((o) => ({ satisfied: o.satisfied, waited_ms: o.waitedMs }));
  },
  click_at: (args, env) => delivered(env, (deps) => clickAt(args, deps)),
  type_text: (args, env) => delivered(env, (deps) => typeText(args, deps)),
  press_key: (args, env) => delivered(env, (deps) => pressKey(args, deps)),
  scroll: (args, env) => delivered(env, (deps) => scroll(args, deps)),
  drag: (args, env) => delivered(env, (deps) => drag(args, deps)),
  mouse_move: (args, env) => delivered(env, (deps) => mouseMove(args, deps)),
  get_clipboard: (_args, env) => {
    env.client();
    return env.clipboard.get();
  },
  set_clipboard: (args, env) => delivered(env, (_deps, client) => env.clipboard.set(client, args)),
  request_annotation: (args, env) => env.annotate(args, env.signal),
};

export function runTool(
  call: TypedToolCall,
  env: ToolEnv,
): AnyViewerResult | Promise<AnyViewerResult> {
  const handler = viewerHandlers[call.name] as Handler<ViewerToolName> | undefined;
  if (handler === undefined) {
    // Only a viewer older than the bridge gets here (the message parser knows every tool).
    throw new ProtocolError(
      'system_error',
      `This viewer cannot run ${String(call.name)}; reload the page to get the viewer that matches the bridge.`,
    );
  }
  return handler(call.args, env);
}
