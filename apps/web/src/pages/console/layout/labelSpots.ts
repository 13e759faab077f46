// Where the layout editor writes each rectangle's name on the picture, so no two labels cover
// each other however small or close the rectangles are: inside its rectangle (top-left) with the
// details under the name when they fit, else the name alone, else a short name ("1", "m1");
// when even that does not fit inside, outside — above, below, right or left, nearest first — in
// the first place that leaves every label already placed (and the fixed ones, the desktop's and
// the layout's extents) uncovered, and preferably no other rectangle; nothing at all as a last
// resort (the rectangle's aria-label and tooltip always carry the full name). Monitors are placed
// first, then the masks over them.
// Pure: the sizes come from `measure`, so it is tested without a browser.

export interface Spot {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LabelRequest {
  /** The rectangle on the picture, in view pixels. */
  rect: Spot;
  name: string;
  short: string;
  /** Lines under the name when there is room inside (sizes, scale). */
  lines: readonly string[];
}

export interface PlacedLabel {
  /** Top-left corner of the label, in view pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
  text: 'full' | 'name' | 'short';
  inside: boolean;
}

/** A text's box in view pixels: the widest line, and the lines' height together. */
export type Measure = (lines: readonly string[]) => { width: number; height: number };

/** Room between a label and its rectangle's edge (inside) or outline (outside). */
export const LABEL_INSET = 3;

const covers = (a: Spot, b: Spot): boolean =>
  Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 0 &&
  Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > 0;

const within = (s: Spot, area: { width: number; height: number }): boolean =>
  s.x >= 0 && s.y >= 0 && s.x + s.width <= area.width && s.y + s.height <= area.height;

/**
 * One placement per request, in order (null: no room anywhere). `fixed` are labels that stay
 * where they are (the extents'); `area` is the picture.
 */
export function placeLabels(
  requests: readonly LabelRequest[],
  measure: Measure,
  area: { width: number; height: number },
  fixed: readonly Spot[] = [],
): (PlacedLabel | null)[] {
  const taken: Spot[] = [...fixed];
  const free = (s: Spot) => within(s, area) && !taken.some((t) => covers(s, t));
  return requests.map(({ rect, name, short, lines }, index) => {
    const texts = [
      { text: 'full' as const, lines: [name, ...lines] },
      { text: 'name' as const, lines: [name] },
      { text: 'short' as const, lines: [short] },
    ];
    // Inside, at the top-left, when the text fits between the edges.
    for (const t of texts) {
      const size = measure(t.lines);
      const spot = { x: rect.x + LABEL_INSET, y: rect.y + LABEL_INSET, ...size };
      const fits =
        size.width <= rect.width - 2 * LABEL_INSET && size.height <= rect.height - 2 * LABEL_INSET;
      if (fits && free(spot)) {
        taken.push(spot);
        return { ...spot, text: t.text, inside: true };
      }
    }
    // Outside: the name, else the short name; first where it covers no other rectangle (a label
    // on a neighbour reads as the neighbour's), then anywhere free, nearest first.
    const others = requests.filter((_, i) => i !== index).map((r) => r.rect);
    for (const clearOfOthers of [true, false]) {
      for (const t of texts.slice(1)) {
        const size = measure(t.lines);
        const spot = outsideSpots(rect, size).find(
          (s) => free(s) && (!clearOfOthers || !others.some((o) => covers(s, o))),
        );
        if (spot !== undefined) {
          taken.push(spot);
          return { ...spot, text: t.text, inside: false };
        }
      }
    }
    return null;
  });
}

/** How far from its rectangle an outside label may go, in rings of its own height. */
const RINGS = 8;

/**
 * Places just outside `rect` for a `size` label, nearest first: above, below, right and left of
 * its corner, then the same sides moved further out, ring by ring.
 */
function outsideSpots(rect: Spot, size: { width: number; height: number }): Spot[] {
  const spots: Spot[] = [];
  for (let ring = 0; ring < RINGS; ring++) {
    const gap = LABEL_INSET + ring * size.height;
    const right = rect.x + rect.width - size.width;
    spots.push(
      { x: rect.x, y: rect.y - gap - size.height, ...size },
      { x: rect.x, y: rect.y + rect.height + gap, ...size },
      { x: rect.x + rect.width + gap, y: rect.y, ...size },
      { x: rect.x - gap - size.width, y: rect.y, ...size },
      { x: right, y: rect.y - gap - size.height, ...size },
      { x: right, y: rect.y + rect.height + gap, ...size },
      { x: rect.x + rect.width + gap, y: rect.y + rect.height - size.height, ...size },
      { x: rect.x - gap - size.width, y: rect.y + rect.height - size.height, ...size },
    );
  }
  return spots;
}

/** The short name on the picture: a monitor's number, or "m" and a mask's. */
export function shortName(kind: 'monitor' | 'mask', index: number): string {
  return kind === 'monitor' ? String(index + 1) : `m${index + 1}`;
}
