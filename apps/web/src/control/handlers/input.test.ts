// Tool arguments → Guacamole instructions, recorded by a fake client: pointer moves before
// clicks, masks per button, paced double clicks, typed keysyms and their pacing, key combos
// pressed in order and released in reverse, wheel steps (Shift for horizontal), interpolated
// drags, desktop bounds, and Stop mid-sequence releasing what is held.
import {
  MODIFIER_KEYSYMS,
  parseToolArgs,
  type ToolName,
  type ToolArgs,
} from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { currentMonitors } from '../monitors.js';
import { cancelledError, type Sleep } from '../sleep.js';
import { FakeGuacClient } from './fakeGuacClient.js';
import {
  CLICK_GAP_MS,
  RETURN_KEYSYM,
  clickAt,
  drag,
  dragPath,
  mouseMove,
  pressKey,
  scroll,
  typeText,
  typingIntervalMs,
  type InputDeps,
} from './input.js';

function args<N extends ToolName>(name: N, raw: unknown): ToolArgs<N> {
  const parsed = parseToolArgs(name, raw);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

function setup(options: { abortAfterSleeps?: number } = {}) {
  const client = new FakeGuacClient();
  const controller = new AbortController();
  const sleeps: number[] = [];
  const sleep: Sleep = (ms, signal) => {
    sleeps.push(ms);
    if (options.abortAfterSleeps !== undefined && sleeps.length >= options.abortAfterSleeps) {
      controller.abort();
    }
    return signal.aborted ? Promise.reject(cancelledError(signal)) : Promise.resolve();
  };
  const desktop = { width: 1280, height: 800 };
  const deps: InputDeps = {
    client,
    desktop,
    monitors: currentMonitors(desktop, 0.5),
    sleep,
    signal: controller.signal,
    confirmed: false,
  };
  return { client, deps, sleeps, controller };
}

describe('click_at', () => {
  it('moves, then presses and releases the button, in desktop pixels', async () => {
    const { client, deps } = setup();
    const result = await clickAt(args('click_at', { x: 100, y: 200 }), {
      ...deps,
      confirmed: true,
    });
    expect(result).toEqual({ success: true, was_confirmed: true });
    expect(client.sent).toEqual(['mouse,100,200,0', 'mouse,100,200,1', 'mouse,100,200,0']);
    expect(client.scaleFlags.every((f) => !f)).toBe(true);
  });

  it('double-clicks the right button with a short gap', async () => {
    const { client, deps, sleeps } = setup();
    await clickAt(args('click_at', { x: 1, y: 2, button: 'right', clicks: 2 }), deps);
    expect(client.sent).toEqual([
      'mouse,1,2,0',
      'mouse,1,2,4',
      'mouse,1,2,0',
      'mouse,1,2,4',
      'mouse,1,2,0',
    ]);
    expect(sleeps).toEqual([CLICK_GAP_MS]);
  });

  it('uses mask 2 for the middle button and waits action_timing_hint first', async () => {
    const { client, deps, sleeps } = setup();
    await clickAt(
      args('click_at', { x: 3, y: 4, button: 'middle', action_timing_hint: 250 }),
      deps,
    );
    expect(sleeps).toEqual([250]);
    expect(client.sent[1]).toBe('mouse,3,4,2');
  });

  it('refuses points outside the desktop and unknown monitors, sending nothing', async () => {
    const { client, deps } = setup();
    await expect(clickAt(args('click_at', { x: 1280, y: 0 }), deps)).rejects.toMatchObject({
      kind: 'invalid_parameters',
    });
    await expect(
      clickAt(args('click_at', { x: 1, y: 1, monitor_index: 2 }), deps),
    ).rejects.toMatchObject({
      kind: 'invalid_parameters',
    });
    expect(client.sent).toEqual([]);
  });
});

describe('type_text', () => {
  it('presses and releases one keysym per character, paced by typing speed', async () => {
    const { client, deps, sleeps } = setup();
    const result = await typeText(
      args('type_text', { text: 'aB\r\n', typing_speed_wpm: 120 }),
      deps,
    );
    expect(result).toEqual({ success: true, typed_length: 4 });
    expect(client.sent).toEqual([
      'key,97,1',
      'key,97,0',
      'key,66,1',
      'key,66,0',
      `key,${RETURN_KEYSYM},1`,
      `key,${RETURN_KEYSYM},0`,
    ]);
    expect(sleeps).toEqual([100, 100]);
    expect(typingIntervalMs(60)).toBe(200);
  });

  it('uses Unicode keysyms beyond Latin-1', async () => {
    const { client, deps } = setup();
    await typeText(args('type_text', { text: '€' }), deps);
    expect(client.sent).toEqual(['key,16785580,1', 'key,16785580,0']);
  });

  it('stops typing at once when cancelled', async () => {
    const { client, deps } = setup({ abortAfterSleeps: 2 });
    await expect(typeText(args('type_text', { text: 'abcdef' }), deps)).rejects.toMatchObject({
      kind: 'cancelled',
    });
    expect(client.sent).toEqual(['key,97,1', 'key,97,0', 'key,98,1', 'key,98,0']);
  });
});

describe('press_key', () => {
  it('presses modifiers then the key, releases in reverse, repeats', async () => {
    const { client, deps } = setup();
    const result = await pressKey(args('press_key', { keys: 'ctrl+shift+t', repeat: 2 }), deps);
    const ctrl = MODIFIER_KEYSYMS.ctrl;
    const shift = MODIFIER_KEYSYMS.shift;
    expect(result).toEqual({ success: true, keysyms: [ctrl, shift, 116] });
    const once = [
      `key,${ctrl},1`,
      `key,${shift},1`,
      'key,116,1',
      'key,116,0',
      `key,${shift},0`,
      `key,${ctrl},0`,
    ];
    expect(client.sent).toEqual([...once, ...once]);
  });

  it('maps named keys and aliases', async () => {
    const { client, deps } = setup();
    await pressKey(args('press_key', { keys: 'alt+F4' }), deps);
    expect(client.sent).toEqual([
      `key,${MODIFIER_KEYSYMS.alt},1`,
      'key,65473,1', // F4 = 0xffc1
      'key,65473,0',
      `key,${MODIFIER_KEYSYMS.alt},0`,
    ]);
  });
});

describe('scroll', () => {
  it('sends wheel down steps (mask 16) at the point', async () => {
    const { client, deps } = setup();
    await scroll(args('scroll', { x: 5, y: 6, direction: 'down', amount: 2 }), deps);
    expect(client.sent).toEqual([
      'mouse,5,6,0',
      'mouse,5,6,16',
      'mouse,5,6,0',
      'mouse,5,6,16',
      'mouse,5,6,0',
    ]);
  });

  it('scrolls left as Shift + wheel up, and releases Shift when cancelled', async () => {
    const { client, deps } = setup({ abortAfterSleeps: 1 });
    const shift = MODIFIER_KEYSYMS.shift;
    await expect(
      scroll(args('scroll', { x: 5, y: 6, direction: 'left', amount: 3 }), deps),
    ).rejects.toMatchObject({ kind: 'cancelled' });
    expect(client.sent).toEqual([
      'mouse,5,6,0',
      `key,${shift},1`,
      'mouse,5,6,8',
      'mouse,5,6,0',
      `key,${shift},0`,
    ]);
  });
});

describe('drag', () => {
  it('interpolates from → to with the button held, then releases at the end', async () => {
    const { client, deps } = setup();
    await drag(args('drag', { from: { x: 0, y: 0 }, to: { x: 40, y: 20 }, duration_ms: 64 }), deps);
    expect(dragPath({ x: 0, y: 0 }, { x: 40, y: 20 }, 64)).toEqual([
      { x: 10, y: 5 },
      { x: 20, y: 10 },
      { x: 30, y: 15 },
      { x: 40, y: 20 },
    ]);
    expect(client.sent).toEqual([
      'mouse,0,0,0',
      'mouse,0,0,1',
      'mouse,10,5,1',
      'mouse,20,10,1',
      'mouse,30,15,1',
      'mouse,40,20,1',
      'mouse,40,20,0',
    ]);
  });

  it('releases the button where it got to when cancelled', async () => {
    const { client, deps } = setup({ abortAfterSleeps: 2 });
    await expect(
      drag(
        args('drag', {
          from: { x: 0, y: 0 },
          to: { x: 40, y: 20 },
          duration_ms: 64,
          button: 'right',
        }),
        deps,
      ),
    ).rejects.toMatchObject({ kind: 'cancelled' });
    expect(client.sent).toEqual(['mouse,0,0,0', 'mouse,0,0,4', 'mouse,10,5,4', 'mouse,10,5,0']);
  });
});

describe('mouse_move', () => {
  it('moves without buttons', () => {
    const { client, deps } = setup();
    expect(mouseMove(args('mouse_move', { x: 7, y: 8 }), deps)).toEqual({ success: true });
    expect(client.sent).toEqual(['mouse,7,8,0']);
  });
});
