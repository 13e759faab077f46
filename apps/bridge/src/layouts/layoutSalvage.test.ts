// A stored layout that today's rules refuse keeps every privacy mask: unit cases for the salvage
// (overlapping monitors, fractional or out-of-range masks, more masks than a layout holds), and
// readLayout on a real SQLite store holding such a layout written past the API.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MAX_PRIVACY_MASKS,
  MonitorLayout,
  isMasked,
  type PrivacyMask,
} from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { openStore } from '../store/openStore.js';
import { CURRENT_LAYOUT_NAME, readLayout } from './storedLayouts.js';
import { salvageLayout } from './layoutSalvage.js';

const covers = (masks: readonly PrivacyMask[], r: PrivacyMask) =>
  [r.x, r.x + r.width - 1].every((x) =>
    [r.y, r.y + r.height - 1].every((y) => isMasked(masks, { x, y })),
  );

describe('salvageLayout', () => {
  it('keeps the masks on one monitor over everything when the monitors no longer make a layout', () => {
    const raw = {
      monitors: [
        { x: 0, y: 0, width: 1000, height: 800 },
        { x: 900, y: 0, width: 1000, height: 800 }, // overlaps the first
      ],
      masks: [{ x: 100, y: 100, width: 300, height: 200, label: 'mail' }],
    };
    expect(MonitorLayout.safeParse(raw).success).toBe(false);
    const layout = salvageLayout(raw);
    expect(layout).toEqual({
      monitors: [{ x: 0, y: 0, width: 1900, height: 800 }],
      masks: [{ x: 100, y: 100, width: 300, height: 200 }],
    });
  });

  it('keeps the stored monitors when only a mask broke a rule, and grows that mask outwards', () => {
    const monitors = [{ x: 0, y: 0, width: 1280, height: 800, label: 'left' }];
    const layout = salvageLayout({
      monitors,
      masks: [{ x: 10.5, y: 20.25, width: 99.2, height: 40, note: 'a field added since' }],
    });
    expect(layout?.monitors).toEqual(monitors);
    expect(layout?.masks).toEqual([{ x: 10, y: 20, width: 100, height: 41 }]);
  });

  it('folds masks past the limit into one that covers them all', () => {
    const many = Array.from({ length: MAX_PRIVACY_MASKS + 8 }, (_, i) => ({
      x: (i % 10) * 100,
      y: Math.floor(i / 10) * 100,
      width: 50,
      height: 50,
    }));
    const layout = salvageLayout({
      monitors: [{ x: 0, y: 0, width: 1280, height: 800 }],
      masks: many,
    });
    expect(layout?.masks).toHaveLength(MAX_PRIVACY_MASKS);
    for (const mask of many) expect(covers(layout?.masks ?? [], mask)).toBe(true);
  });

  it('gives nothing to keep when there is no mask, or nothing readable', () => {
    expect(salvageLayout({ monitors: [{ x: 0, y: 0, width: 1, height: 1, extra: 1 }] })).toBeNull();
    expect(salvageLayout('not a layout')).toBeNull();
    expect(salvageLayout({ masks: [{ x: 'a' }] })).toBeNull();
  });
});

describe('readLayout', () => {
  it('reads a stored layout that today refuses with its masks kept', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'oc-salvage-'));
    const store = await openStore({ dataDir });
    try {
      const person = await store.people.add({
        username: 'salvage',
        displayName: 'Salvage',
        passwordHash: null,
        role: 'member',
      });
      await store.layouts.put({
        personId: person.id,
        name: CURRENT_LAYOUT_NAME,
        layout: {
          monitors: [
            { x: 0, y: 0, width: 800, height: 600 },
            { x: 700, y: 0, width: 800, height: 600 },
          ],
          masks: [{ x: 5, y: 6, width: 70, height: 80 }],
        },
        updatedAt: 1_700_000_000_000,
      });
      const read = await readLayout(store, person.id);
      expect(read?.layout.masks).toEqual([{ x: 5, y: 6, width: 70, height: 80 }]);
      expect(read?.updated_at).toBe(1_700_000_000_000);
    } finally {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
