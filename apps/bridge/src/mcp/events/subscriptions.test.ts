// Event subscriptions as a data structure: bounded buffers that count drops, debounce per type,
// merged draining across subscriptions, forgetting what a toggle no longer allows, the types
// collected and change notices.
import type { UiEvent } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { EventSubscriptions } from './subscriptions.js';

const move = (at: number, x = 1): UiEvent => ({ type: 'mouse_move', at, data: { x, y: 1 } });

describe('EventSubscriptions', () => {
  it('keeps the newest events when full and reports how many were dropped, once', () => {
    const subs = new EventSubscriptions(undefined, 3);
    const id = subs.subscribe({ events: ['mouse_move'], debounce_ms: 0 }) ?? '';
    for (let i = 0; i < 5; i += 1) subs.push(move(i));
    expect(subs.drain(id, 10)).toEqual({ events: [move(2), move(3), move(4)], dropped: 2 });
    expect(subs.drain(id, 10)).toEqual({ events: [], dropped: 0 });
  });

  it('forgets buffered events a toggle no longer allows, keeping the others in order', () => {
    const subs = new EventSubscriptions();
    const id = subs.subscribe({ events: ['mouse_move', 'key_press'], debounce_ms: 0 }) ?? '';
    const key: UiEvent = { type: 'key_press', at: 2, data: { key: 'a', keysym: 97 } };
    for (const e of [move(1), key, move(3)]) subs.push(e);
    subs.forget((event) => event.type !== 'key_press');
    expect(subs.peek(id)?.events).toEqual([move(1), move(3)]);
    expect(subs.drain(id, 10)?.events).toEqual([move(1), move(3)]);
  });

  it('debounces per type by event time', () => {
    const subs = new EventSubscriptions();
    const id = subs.subscribe({ events: ['mouse_move', 'key_press'], debounce_ms: 100 }) ?? '';
    const key: UiEvent = { type: 'key_press', at: 50, data: { key: 'a', keysym: 97 } };
    for (const e of [move(0), key, move(99), move(100), move(150)]) subs.push(e);
    expect(subs.drain(id, 10)?.events).toEqual([move(0), key, move(100)]);
  });

  it('drains all subscriptions merged by time and respects max; unknown ids give undefined', () => {
    let notified = 0;
    const subs = new EventSubscriptions(() => (notified += 1));
    subs.subscribe({
      events: ['mouse_move'],
      debounce_ms: 0,
      filter: { region: { x: 0, y: 0, width: 5, height: 5 } },
    });
    subs.subscribe({ events: ['mouse_move'], debounce_ms: 0 });
    subs.push(move(1, 1));
    subs.push(move(2, 50));
    expect(notified).toBe(3);
    expect(subs.drain(undefined, 2)?.events.map((e) => e.at)).toEqual([1, 1]);
    expect(subs.drain(undefined, 10)?.events.map((e) => e.at)).toEqual([2]);
    expect(subs.drain('sub_missing', 10)).toBeUndefined();
  });

  it('reports the types it collects and says when subscriptions come or go', () => {
    let changes = 0;
    const subs = new EventSubscriptions(undefined, 10, () => (changes += 1));
    expect(subs.types()).toEqual(new Set());
    const keys = subs.subscribe({ events: ['key_press'], debounce_ms: 0 }) ?? '';
    subs.subscribe({ events: ['mouse_click', 'key_press'], debounce_ms: 0 });
    expect(subs.types()).toEqual(new Set(['key_press', 'mouse_click']));
    expect(changes).toBe(2);
    expect(subs.unsubscribe('sub_missing')).toBe(false);
    expect(changes).toBe(2);
    expect(subs.unsubscribe(keys)).toBe(true);
    expect(changes).toBe(3);
    subs.clear();
    expect(subs.types()).toEqual(new Set());
    expect(changes).toBe(4);
    subs.clear();
    expect(changes).toBe(4);
  });

  it('caps subscriptions per session', () => {
    const subs = new EventSubscriptions();
    for (let i = 0; i < 32; i += 1)
      expect(subs.subscribe({ events: ['mouse_move'], debounce_ms: 0 })).toBeDefined();
    expect(subs.subscribe({ events: ['mouse_move'], debounce_ms: 0 })).toBeUndefined();
  });
});
