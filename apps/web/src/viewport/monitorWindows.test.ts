// The monitor windows' addresses and how they are opened: one per monitor at viewerUrlFor's
// query, each named for its monitor and put over its screen when one is known, blocked ones
// counted. window.open is a fake here (named so); the real pop-ups are e2e/layout.spec.ts's.
import { PAGES, viewerUrlFor, type MonitorLayout } from '@overlay-companion/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { monitorWindowUrls, openMonitorWindows, windowFeatures } from './monitorWindows.js';

const layout: MonitorLayout = {
  monitors: [
    { x: 0, y: 0, width: 1920, height: 1080, screen: { width: 1920, height: 1080 } },
    { x: 1920, y: 0, width: 1280, height: 1024 },
  ],
  masks: [],
};
const origin = 'https://oc.example';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('monitor windows', () => {
  it('have one address per monitor, its crop as viewerUrlFor writes it', () => {
    expect(monitorWindowUrls(layout, origin)).toEqual(
      layout.monitors.map((m, i) => `${origin}${PAGES.viewer}${viewerUrlFor(m, i)}`),
    );
  });

  it('open named per monitor, over the screen given, and count what the browser blocked', () => {
    const fakeOpen = vi.fn((_url: string, name: string) => (name.endsWith('-1') ? null : {}));
    vi.stubGlobal('window', { location: { origin }, open: fakeOpen });
    const screen = { availLeft: 1920, availTop: 0, availWidth: 1280, availHeight: 984 };
    const blocked = openMonitorWindows(layout, [0, 1], (i) => (i === 1 ? screen : undefined));
    expect(blocked).toBe(1);
    expect(fakeOpen.mock.calls).toEqual([
      [monitorWindowUrls(layout, origin)[0], 'overlay-companion-monitor-0', 'popup'],
      [
        monitorWindowUrls(layout, origin)[1],
        'overlay-companion-monitor-1',
        'popup,left=1920,top=0,width=1280,height=984',
      ],
    ]);
    expect(windowFeatures(screen)).toBe('popup,left=1920,top=0,width=1280,height=984');
  });
});
