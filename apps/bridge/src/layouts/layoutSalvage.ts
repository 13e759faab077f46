// A stored layout that no longer passes MonitorLayout (its rules got stricter after it was saved)
// must not lose the person's privacy masks: read as "no layout", it would show the AI what the
// person hid. Salvage keeps every mask that still reads as a rectangle — grown outwards to whole
// pixels and clipped to the largest desktop, so it covers at least what it did — with the stored
// monitors when they still make a valid layout with them, else on one monitor spanning
// everything stored. The monitor map may change (the safe direction); the masks never shrink.
import {
  LayoutMonitor,
  MAX_DESKTOP_PX,
  MAX_PRIVACY_MASKS,
  MonitorLayout,
  type PrivacyMask,
} from '@overlay-companion/protocol';
import { z } from 'zod';

const RectLike = z.object({
  x: z.number().finite(),
  y: z.number().finite(),
  width: z.number().finite(),
  height: z.number().finite(),
});
const Stored = z.object({ monitors: z.array(z.unknown()), masks: z.array(z.unknown()) }).partial();

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

function box(raw: unknown): Box | undefined {
  const r = RectLike.safeParse(raw);
  if (!r.success) return undefined;
  const clamp = (v: number) => Math.min(MAX_DESKTOP_PX, Math.max(0, v));
  const b = {
    x0: clamp(Math.floor(r.data.x)),
    y0: clamp(Math.floor(r.data.y)),
    x1: clamp(Math.ceil(r.data.x + r.data.width)),
    y1: clamp(Math.ceil(r.data.y + r.data.height)),
  };
  return b.x1 > b.x0 && b.y1 > b.y0 ? b : undefined;
}

const union = (a: Box, b: Box): Box => ({
  x0: Math.min(a.x0, b.x0),
  y0: Math.min(a.y0, b.y0),
  x1: Math.max(a.x1, b.x1),
  y1: Math.max(a.y1, b.y1),
});

const asMask = (b: Box): PrivacyMask => ({
  x: b.x0,
  y: b.y0,
  width: b.x1 - b.x0,
  height: b.y1 - b.y0,
});

/** The layout to use for a stored one that no longer parses; null when it holds no mask. */
export function salvageLayout(raw: unknown): MonitorLayout | null {
  const stored = Stored.safeParse(raw);
  if (!stored.success) return null;
  const maskBoxes = (stored.data.masks ?? []).map(box).filter((b) => b !== undefined);
  if (maskBoxes.length === 0) return null;
  // More than a layout may hold: the extras become one mask covering all of them.
  const kept = maskBoxes.slice(0, MAX_PRIVACY_MASKS - 1);
  const extra = maskBoxes
    .slice(MAX_PRIVACY_MASKS - 1)
    .reduce<Box | undefined>((all, b) => (all === undefined ? b : union(all, b)), undefined);
  const masks = [...kept, ...(extra === undefined ? [] : [extra])].map(asMask);

  const monitors = (stored.data.monitors ?? []).flatMap((m) => {
    const parsed = LayoutMonitor.safeParse(m);
    return parsed.success ? [parsed.data] : [];
  });
  const asStored = MonitorLayout.safeParse({ monitors, masks });
  if (asStored.success) return asStored.data;
  // One monitor from 0,0 over every stored rectangle: every mask lies inside it.
  const all = [...(stored.data.monitors ?? []).map(box), ...maskBoxes]
    .filter((b) => b !== undefined)
    .reduce(union);
  const whole = MonitorLayout.safeParse({
    monitors: [{ x: 0, y: 0, width: all.x1, height: all.y1 }],
    masks,
  });
  return whole.success ? whole.data : null;
}
