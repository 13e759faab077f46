// Teach mode (request_annotation) in the control window: the life of one request. It opens the
// request in the teach store (the panel and the interaction layer show it), then answers the
// tool call when the person presses Done (completed, with every item in desktop pixels) or
// Cancel (not completed, nothing), when the AI's timeout_ms runs out (not completed, with what
// was drawn), or rejects with the signal's reason when the call is aborted (Stop, tool_cancel,
// the link dropping). One request at a time: a second one while the person is answering is
// refused (rate_limited, saying how long the open one may still take) rather than queued, so
// the AI never waits on a prompt the person cannot see yet.
import {
  MAX_ANNOTATION_TIMEOUT_MS,
  ProtocolError,
  clampRect,
  monitorToDesktop,
  type Annotation,
  type Monitor,
  type PrivacyMask,
  type ToolArgs,
  type ToolViewerResult,
} from '@overlay-companion/protocol';
import type { StoreApi } from 'zustand/vanilla';
import { resolveMonitor } from '../control/monitors.js';
import type { ToastTone } from '../store/toasts.js';
import { toAnnotation, type DesktopSize } from './geometry.js';
import { teachStore, type AskedArea, type TeachItem, type TeachState } from './teachStore.js';

type Args = ToolArgs<'request_annotation'>;
type Result = ToolViewerResult<'request_annotation'>;

export interface AnnotationDeps {
  /** The desktop's size; throws a ProtocolError saying what to do while it is unknown. */
  desktop: () => DesktopSize;
  monitors: () => Monitor[];
  masks: () => readonly PrivacyMask[];
  /** This is the bridge's headless viewer: nobody is there to answer. */
  headless: () => boolean;
  /** Tells the person something they might miss (a toast). */
  notify?: (tone: ToastTone, text: string) => void;
  store?: StoreApi<TeachState>;
  now?: () => number;
}

/** The abort reason as the error the call fails with. */
function abortError(signal: AbortSignal): ProtocolError {
  return signal.reason instanceof ProtocolError
    ? signal.reason
    : new ProtocolError('cancelled', 'request_annotation was cancelled.');
}

function describeRect(r: { x: number; y: number; width: number; height: number }): string {
  return `${r.width}×${r.height} at ${r.x},${r.y}`;
}

/**
 * The area to highlight, in desktop pixels: `region` (monitor-relative when monitor_index is
 * given), else the whole monitor named, else none. A region wholly off the desktop is refused.
 */
export function askedArea(
  args: Pick<Args, 'region' | 'monitor_index'>,
  monitors: readonly Monitor[],
  desktop: DesktopSize,
): AskedArea | null {
  const monitor = resolveMonitor(monitors, args.monitor_index);
  const monitorLabel = monitor === undefined ? null : `monitor ${monitor.index}`;
  if (args.region === undefined) {
    if (monitor === undefined) return null;
    const { x, y, width, height } = clampRect(monitor, desktop);
    return { x, y, width, height, monitorLabel };
  }
  const onDesktop = clampRect(monitorToDesktop(args.region, monitor), desktop);
  if (onDesktop.width < 1 || onDesktop.height < 1) {
    throw new ProtocolError(
      'invalid_parameters',
      `region (${describeRect(args.region)}${monitorLabel === null ? '' : ` on ${monitorLabel}`}) lies outside the desktop (${desktop.width}×${desktop.height}); get_display_info gives the desktop and monitors.`,
    );
  }
  return { ...onDesktop, monitorLabel };
}

export class AnnotationRequests {
  readonly #deps: AnnotationDeps;
  readonly #store: StoreApi<TeachState>;
  readonly #now: () => number;
  #nextId = 1;

  constructor(deps: AnnotationDeps) {
    this.#deps = deps;
    this.#store = deps.store ?? teachStore;
    this.#now = deps.now ?? Date.now;
  }

  request(args: Args, signal: AbortSignal): Promise<Result> {
    try {
      return this.#open(args, signal);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  #open(args: Args, signal: AbortSignal): Promise<Result> {
    if (signal.aborted) throw abortError(signal);
    if (this.#deps.headless()) {
      throw new ProtocolError(
        'viewer_unavailable',
        'request_annotation needs a person at the viewer, and the window answering is the bridge’s headless viewer (nobody watches it). Ask the person to open the Overlay Companion viewer in their browser.',
      );
    }
    const busy = this.#store.getState().request;
    if (busy !== null) {
      const left = Math.max(0, busy.deadlineAt - this.#now());
      throw new ProtocolError(
        'rate_limited',
        `The person is still answering another request_annotation (it ends within ${Math.ceil(left / 1000)} s). Wait for its result, then ask again — or ask for everything in one prompt.`,
        left,
      );
    }
    const desktop = this.#deps.desktop();
    const monitors = this.#deps.monitors();
    const area = askedArea(args, monitors, desktop);
    const id = this.#nextId++;
    const openedAt = this.#now();
    const store = this.#store;
    store.getState().requestOpened({
      id,
      prompt: args.prompt,
      area,
      maxItems: args.max_items,
      masks: this.#deps.masks(),
      openedAt,
      deadlineAt: openedAt + args.timeout_ms,
    });

    return new Promise<Result>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        unsubscribe();
        signal.removeEventListener('abort', aborted);
        store.getState().requestClosed(id);
      };
      const answer = (how: 'done' | 'cancel' | 'timeout') => {
        const items = store.getState().request?.items ?? [];
        cleanup();
        resolve({
          completed: how === 'done',
          annotations: how === 'cancel' ? [] : this.#annotations(items, desktop, monitors),
          waited_ms: Math.min(
            MAX_ANNOTATION_TIMEOUT_MS + 60_000,
            Math.max(0, Math.round(this.#now() - openedAt)),
          ),
        });
        if (how === 'timeout') {
          this.#deps.notify?.(
            'warn',
            `Time ran out on the AI’s request to point things out; it got the ${items.length} item(s) you had drawn.`,
          );
        }
      };
      const aborted = () => {
        cleanup();
        const error = abortError(signal);
        this.#deps.notify?.('info', `The AI’s request to point things out ended: ${error.message}`);
        reject(error);
      };
      const timer = setTimeout(() => answer('timeout'), args.timeout_ms);
      const unsubscribe = store.subscribe((now) => {
        const outcome = now.request?.id === id ? now.request.outcome : null;
        if (outcome !== null) answer(outcome);
      });
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  /** The items as the tool returns them; monitors as they are now (the layout may have moved). */
  #annotations(
    items: readonly TeachItem[],
    openDesktop: DesktopSize,
    openMonitors: Monitor[],
  ): Annotation[] {
    let desktop = openDesktop;
    let monitors = openMonitors;
    try {
      desktop = this.#deps.desktop();
      monitors = this.#deps.monitors();
    } catch {
      // Reconnecting right now: the desktop and monitors from when the request opened hold.
    }
    return items.flatMap((item) => toAnnotation(item, desktop, monitors) ?? []);
  }
}
