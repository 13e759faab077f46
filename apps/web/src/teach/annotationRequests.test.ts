// The life of a request_annotation in the control window, driven through the teach store the way
// the panel and the layer drive it: Done, Cancel, the timeout, an abort (Stop or tool_cancel),
// max_items and privacy masks, one request at a time, the headless viewer, and the asked area.
import {
  ProtocolError,
  requestAnnotation,
  type Monitor,
  type ToolArgs,
} from '@overlay-companion/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnnotationRequests, askedArea } from './annotationRequests.js';
import { pointItem, rectBetween } from './geometry.js';
import { createTeachStore } from './teachStore.js';

const desktop = { width: 2560, height: 1440 };
const monitors: Monitor[] = [
  { index: 0, x: 0, y: 0, width: 1280, height: 1440, scale: 1 },
  { index: 1, x: 1280, y: 0, width: 1280, height: 1440, scale: 1 },
];

function args(extra: Record<string, unknown> = {}): ToolArgs<'request_annotation'> {
  // Parsed by the tool's own schema, so the defaults are the ones the bridge sends.
  return requestAnnotation.input.parse({ prompt: 'Show me the Save button', ...extra });
}

function setup(
  options: {
    headless?: boolean;
    masks?: { x: number; y: number; width: number; height: number }[];
  } = {},
) {
  const store = createTeachStore();
  const notices: string[] = [];
  const requests = new AnnotationRequests({
    store,
    desktop: () => desktop,
    monitors: () => monitors,
    masks: () => options.masks ?? [],
    headless: () => options.headless ?? false,
    notify: (_tone, text) => notices.push(text),
  });
  return { store, requests, notices, person: () => store.getState() };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('AnnotationRequests', () => {
  it('Done returns every item in desktop pixels with its monitor and note, in order', async () => {
    const { requests, person, notices } = setup();
    const answer = requests.request(args(), new AbortController().signal);
    expect(person().request?.prompt).toBe('Show me the Save button');
    // The panel, the tab title and the screen-reader announcement say it; no toast over them.
    expect(notices).toEqual([]);
    expect(person().itemAdded(rectBetween({ x: 10, y: 20 }, { x: 109, y: 69 }))).toBe(true);
    expect(person().itemAdded(pointItem({ x: 2000, y: 700 }))).toBe(true);
    expect(person().itemAdded(rectBetween({ x: 1200, y: 0 }, { x: 1400, y: 10 }))).toBe(true);
    const [first, second] = person().request?.items ?? [];
    person().noteChanged(first?.key ?? 0, '<b>html</b>');
    person().noteChanged(second?.key ?? 0, 'the file name');
    vi.advanceTimersByTime(4_321);
    person().personFinished('done');
    const result = await answer;
    expect(result).toEqual({
      completed: true,
      annotations: [
        {
          kind: 'rect',
          x: 10,
          y: 20,
          width: 100,
          height: 50,
          note: '<b>html</b>',
          monitor_index: 0,
        },
        { kind: 'point', x: 2000, y: 700, note: 'the file name', monitor_index: 1 },
        // Centre (1300, 5): monitor 1, though it starts on monitor 0.
        { kind: 'rect', x: 1200, y: 0, width: 201, height: 11, monitor_index: 1 },
      ],
      waited_ms: 4_321,
    });
    // What the bridge checks the viewer's answer against.
    expect(requestAnnotation.viewerResult.safeParse(result).success).toBe(true);
    expect(person().request).toBeNull();
  });

  it('a removed item is not returned, and notes are cut to 500 characters', async () => {
    const { requests, person } = setup();
    const answer = requests.request(args(), new AbortController().signal);
    person().itemAdded(pointItem({ x: 1, y: 1 }));
    person().itemAdded(pointItem({ x: 2, y: 2 }));
    const [gone, kept] = person().request?.items ?? [];
    person().itemRemoved(gone?.key ?? 0);
    person().noteChanged(kept?.key ?? 0, 'x'.repeat(800));
    person().personFinished('done');
    const result = await answer;
    expect(result.annotations).toEqual([
      { kind: 'point', x: 2, y: 2, note: 'x'.repeat(500), monitor_index: 0 },
    ]);
  });

  it('Cancel returns completed: false and nothing, even with items drawn', async () => {
    const { requests, person } = setup();
    const answer = requests.request(args(), new AbortController().signal);
    person().itemAdded(pointItem({ x: 5, y: 5 }));
    vi.advanceTimersByTime(1_000);
    person().personFinished('cancel');
    expect(await answer).toEqual({ completed: false, annotations: [], waited_ms: 1_000 });
    expect(person().request).toBeNull();
  });

  it('the timeout returns completed: false with what was drawn, and tells the person', async () => {
    const { requests, person, notices } = setup();
    const answer = requests.request(args({ timeout_ms: 5_000 }), new AbortController().signal);
    person().itemAdded(pointItem({ x: 5, y: 6 }));
    vi.advanceTimersByTime(4_999);
    expect(person().request).not.toBeNull();
    vi.advanceTimersByTime(1);
    expect(await answer).toEqual({
      completed: false,
      annotations: [{ kind: 'point', x: 5, y: 6, monitor_index: 0 }],
      waited_ms: 5_000,
    });
    expect(person().request).toBeNull();
    expect(notices.at(-1)).toContain('Time ran out');
    // A late Done changes nothing.
    person().personFinished('done');
  });

  it('an abort (Stop, tool_cancel) closes it and rejects with the signal’s reason', async () => {
    const { requests, person } = setup();
    const abort = new AbortController();
    const answer = requests.request(args(), abort.signal);
    person().itemAdded(pointItem({ x: 5, y: 6 }));
    const reason = new ProtocolError('cancelled', 'Stopped: You pressed Stop.');
    abort.abort(reason);
    await expect(answer).rejects.toBe(reason);
    expect(person().request).toBeNull();
    // Nothing is left behind: the timer does not fire into a closed request.
    vi.advanceTimersByTime(200_000);
    expect(person().request).toBeNull();
  });

  it('an already-aborted call never opens the panel', async () => {
    const { requests, person } = setup();
    const abort = new AbortController();
    abort.abort(new ProtocolError('cancelled', 'gone'));
    await expect(requests.request(args(), abort.signal)).rejects.toMatchObject({
      kind: 'cancelled',
    });
    expect(person().request).toBeNull();
  });

  it('max_items: the next item is refused with a message until one is removed', async () => {
    const { requests, person } = setup();
    const answer = requests.request(args({ max_items: 2 }), new AbortController().signal);
    expect(person().itemAdded(pointItem({ x: 1, y: 1 }))).toBe(true);
    expect(person().itemAdded(pointItem({ x: 2, y: 2 }))).toBe(true);
    expect(person().itemAdded(pointItem({ x: 3, y: 3 }))).toBe(false);
    expect(person().request?.notice).toContain('at most 2 items');
    person().itemRemoved(person().request?.items[0]?.key ?? 0);
    expect(person().request?.notice).toBeNull();
    expect(person().itemAdded(pointItem({ x: 3, y: 3 }))).toBe(true);
    person().personFinished('done');
    expect((await answer).annotations.map((a) => a.x)).toEqual([2, 3]);
  });

  it('refuses items over a privacy mask, naming it', async () => {
    const { requests, person } = setup({ masks: [{ x: 100, y: 100, width: 50, height: 50 }] });
    const answer = requests.request(args(), new AbortController().signal);
    expect(person().itemAdded(rectBetween({ x: 0, y: 0 }, { x: 120, y: 120 }))).toBe(false);
    expect(person().request?.notice).toContain('private area');
    person().personFinished('done');
    expect((await answer).annotations).toEqual([]);
  });

  it('one request at a time: a second one is refused while the first is open', async () => {
    const { requests, person } = setup();
    const first = requests.request(args({ timeout_ms: 60_000 }), new AbortController().signal);
    vi.advanceTimersByTime(10_000);
    const second = requests.request(args({ prompt: 'other' }), new AbortController().signal);
    await expect(second).rejects.toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 50_000,
      message: expect.stringContaining('ends within 50 s') as unknown,
    });
    expect(person().request?.prompt).toBe('Show me the Save button');
    person().personFinished('cancel');
    await first;
    // Free again.
    const third = requests.request(args({ prompt: 'third' }), new AbortController().signal);
    expect(person().request?.prompt).toBe('third');
    person().personFinished('cancel');
    await third;
  });

  it('the bridge’s headless viewer refuses: nobody is there to point', async () => {
    const { requests, person } = setup({ headless: true });
    await expect(requests.request(args(), new AbortController().signal)).rejects.toMatchObject({
      kind: 'viewer_unavailable',
    });
    expect(person().request).toBeNull();
  });

  it('an unknown desktop or monitor fails the call with the viewer’s own error', async () => {
    const store = createTeachStore();
    const requests = new AnnotationRequests({
      store,
      desktop: () => {
        throw new ProtocolError('system_error', 'not connected yet');
      },
      monitors: () => monitors,
      masks: () => [],
      headless: () => false,
    });
    await expect(requests.request(args(), new AbortController().signal)).rejects.toMatchObject({
      kind: 'system_error',
    });
    const { requests: ok } = setup();
    await expect(
      ok.request(args({ monitor_index: 7 }), new AbortController().signal),
    ).rejects.toMatchObject({ kind: 'invalid_parameters' });
    expect(store.getState().request).toBeNull();
  });
});

describe('askedArea', () => {
  it('is the region in desktop pixels, monitor-relative with monitor_index, clamped', () => {
    expect(
      askedArea({ region: { x: 10, y: 20, width: 30, height: 40 } }, monitors, desktop),
    ).toEqual({ x: 10, y: 20, width: 30, height: 40, monitorLabel: null });
    expect(
      askedArea(
        { region: { x: 1200, y: 20, width: 300, height: 40 }, monitor_index: 1 },
        monitors,
        desktop,
      ),
    ).toEqual({ x: 2480, y: 20, width: 80, height: 40, monitorLabel: 'monitor 1' });
  });

  it('is the whole monitor when only monitor_index is given, and nothing otherwise', () => {
    expect(askedArea({ monitor_index: 1 }, monitors, desktop)).toEqual({
      x: 1280,
      y: 0,
      width: 1280,
      height: 1440,
      monitorLabel: 'monitor 1',
    });
    expect(askedArea({}, monitors, desktop)).toBeNull();
  });

  it('refuses a region wholly off the desktop, saying how big the desktop is', () => {
    expect(() =>
      askedArea({ region: { x: 3000, y: 0, width: 10, height: 10 } }, monitors, desktop),
    ).toThrow(/outside the desktop \(2560×1440\)/);
  });
});
