// Where the overlay labels' tags go and what they say. Each tag is placed outside its box when
// there is room (labelPlacement.ts), sized with the zoom and cut with an ellipsis when longer
// than the room allows (labelText.ts labelMaxWidth). The tags are painted on the layer's canvas
// above the boxes (labelCanvas.ts, in the painting worker where it runs), so a frame with
// thousands of overlays changing touches no DOM for them; a tag is worked out again only when
// something about it changed (its overlay, its box on screen, the area). The one the person
// points at (hoverOverlay.ts) is instead a DOM tag, shown whole: wrapped, above the others,
// its text selectable — text put in as textContent, so markup or a script in a label is shown,
// never parsed. Every tag, painted or DOM, carries the AI's mark — an "AI" badge and a frame in
// the AI's colour (overlays.css, labelCanvas.ts) that none of the viewer's own messages wear —
// so a label such as "STOP is disabled by the administrator" reads as the AI's words.
import type { Overlay } from '@overlay-companion/protocol';
import type { PaintLabel } from './labelCanvas.js';
import { placeLabel, type Box, type LabelSide } from './labelPlacement.js';
import { AI_MARK, labelFont, labelMaxWidth, labelSize } from './labelText.js';
import type { LabelItem } from './overlayFrame.js';

/** A painted tag, and what the page says about it (paintAck.ts, for tests). */
export interface ShownLabel extends PaintLabel {
  side: LabelSide;
  /** The text is cut with an ellipsis (the whole text shows while pointed at). */
  cut: boolean;
}

interface Placed {
  overlay: Overlay;
  /** Everything the tag depends on besides its overlay; unchanged means reused. */
  key: string;
  label: ShownLabel;
}

export interface LabelFrame {
  /** The tags to paint, in drawing order: the same array as last frame's while none changed. */
  painted: readonly ShownLabel[];
  /** Where every tag is (area pixels, the DOM tag too), for the layer's coverage. */
  boxes: Box[];
}

export class LabelTags {
  readonly #container: HTMLElement;
  #placed = new Map<string, Placed>();
  #painted: readonly ShownLabel[] = [];
  /** The DOM tag of the label pointed at, and what it shows. */
  #whole: { element: HTMLSpanElement; overlay: Overlay; key: string; box: Box } | null = null;

  constructor(container: HTMLElement) {
    this.#container = container;
  }

  /** The tags for `items` (in drawing order), at view `scale` in an area of `area` CSS pixels. */
  update(
    items: readonly LabelItem[],
    scale: number,
    area: { width: number; height: number },
    hovered: string | null,
  ): LabelFrame {
    const placed = new Map<string, Placed>();
    const painted: ShownLabel[] = [];
    const boxes: Box[] = [];
    let pointedAt: LabelItem | undefined;
    for (const item of items) {
      const { overlay, rect } = item;
      if (overlay.overlay_id === hovered) {
        pointedAt = item;
        continue;
      }
      const key = `${rect.x},${rect.y},${rect.width},${rect.height},${scale},${area.width},${area.height}`;
      let tag = this.#placed.get(overlay.overlay_id);
      if (tag === undefined || tag.overlay !== overlay || tag.key !== key) {
        const text = overlay.label ?? '';
        const size = labelSize(text, scale, area.width);
        const at = placeLabel(rect, size, area);
        const label: ShownLabel = {
          overlay_id: overlay.overlay_id,
          text,
          x: at.x,
          y: at.y,
          width: size.width,
          height: size.height,
          fontSize: size.fontSize,
          side: at.side,
          cut: size.cut,
        };
        tag = { overlay, key, label };
      }
      placed.set(overlay.overlay_id, tag);
      painted.push(tag.label);
      boxes.push(tag.label);
    }
    this.#placed = placed;
    const same =
      painted.length === this.#painted.length && painted.every((l, i) => this.#painted[i] === l);
    if (!same) this.#painted = painted;
    const whole = this.#showWhole(pointedAt, scale, area);
    if (whole !== undefined) boxes.push(whole);
    return { painted: this.#painted, boxes };
  }

  /** The DOM tag for the label pointed at (none: removed); returns where it is. */
  #showWhole(
    item: LabelItem | undefined,
    scale: number,
    area: { width: number; height: number },
  ): Box | undefined {
    const current = this.#whole;
    if (item === undefined) {
      current?.element.remove();
      this.#whole = null;
      return undefined;
    }
    const { overlay, rect } = item;
    const key = `${rect.x},${rect.y},${rect.width},${rect.height},${scale},${area.width},${area.height}`;
    if (current !== null && current.overlay === overlay && current.key === key) return current.box;
    current?.element.remove();
    const text = overlay.label ?? '';
    const element = document.createElement('span');
    element.className = 'overlay-label overlay-label--whole';
    element.dataset.overlayLabel = overlay.overlay_id;
    element.dataset.mark = AI_MARK;
    element.textContent = text;
    const size = labelSize(text, scale, area.width, true);
    const at = placeLabel(rect, size, area);
    element.dataset.side = at.side;
    element.style.left = `${at.x}px`;
    element.style.top = `${at.y}px`;
    // Wrapped, at least as wide as the cut tag was (never narrower than 60ch).
    element.style.maxWidth = `min(max(60ch, ${labelMaxWidth(area.width)}px), 100%)`;
    element.style.font = labelFont(size.fontSize);
    this.#container.append(element);
    const box = { x: at.x, y: at.y, width: size.width, height: size.height };
    this.#whole = { element, overlay, key, box };
    return box;
  }

  /** Removes the DOM tag (the layer unmounts). */
  clear(): void {
    this.#whole?.element.remove();
    this.#whole = null;
    this.#placed.clear();
    this.#painted = [];
  }
}
