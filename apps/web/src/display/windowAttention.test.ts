// Which windows glance, and that the server is told once per change and afresh per connection.
import { describe, expect, it } from 'vitest';
import type { TunnelAttention } from '@overlay-companion/protocol';
import { createConnectionStore } from '../store/connection.js';
import { createControlStore } from '../store/control.js';
import { followWindowAttention, windowAttention } from './windowAttention.js';

describe('windowAttention', () => {
  it('glances only for a hidden mirror: the control window and unknown roles stay full', () => {
    expect(windowAttention(true, 'mirror')).toBe('glance');
    expect(windowAttention(true, 'control')).toBe('full');
    expect(windowAttention(true, null)).toBe('full');
    expect(windowAttention(false, 'mirror')).toBe('full');
  });
});

describe('followWindowAttention', () => {
  it('tells the server each change once, while connected, and again after a reconnect', () => {
    const connection = createConnectionStore();
    const control = createControlStore();
    let hidden = true;
    let visibility: () => void = () => undefined;
    const sent: TunnelAttention[] = [];
    const stop = followWindowAttention({
      connection,
      control,
      hidden: () => hidden,
      onVisibilityChange: (listener) => {
        visibility = listener;
        return () => undefined;
      },
      send: (level) => sent.push(level),
    });
    control.getState().helloReceived({
      viewerId: 'v',
      role: 'mirror',
      mode: 'passive',
      headless: false,
      permissions: { clipboard_read: false, clipboard_write: false, screenshots: true } as never,
    });
    expect(sent).toEqual([]); // not connected yet
    connection.getState().connectAttempted(1);
    connection.getState().firstFrameReceived(Date.now());
    expect(sent).toEqual(['glance']);
    visibility();
    expect(sent).toEqual(['glance']);
    hidden = false;
    visibility();
    expect(sent).toEqual(['glance', 'full']);
    hidden = true;
    visibility();
    expect(sent).toEqual(['glance', 'full', 'glance']);
    // A new connection starts at full on the server: told again.
    connection.getState().connectionFailed(Date.now() + 1000);
    connection.getState().connectAttempted(2);
    connection.getState().firstFrameReceived(Date.now());
    expect(sent).toEqual(['glance', 'full', 'glance', 'glance']);
    // Becoming the control window (the AI's tools run here): full even while hidden.
    control.getState().helloReceived({
      viewerId: 'v',
      role: 'control',
      mode: 'passive',
      headless: false,
      permissions: { clipboard_read: false, clipboard_write: false, screenshots: true } as never,
    });
    expect(sent).toEqual(['glance', 'full', 'glance', 'glance', 'full']);
    stop();
  });
});
