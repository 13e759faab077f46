// The overlay labels as DOM tags, kept by overlay id and touched only when something about a tag
// changed (its overlay, its box on screen, the area, whether it is pointed at): a frame with
// thousands of overlays and one new label creates one element. Text goes in as textContent, so
// a label is always text — markup or a script in it is shown, never parsed. Each tag is placed
// outside its box when there is room (labelPlacement.ts), sized with the zoom, cut with an
// ellipsis when longer than the room allows (labelText.ts labelMaxWidth) and shown whole while
// the person points at it (hoverOverlay.ts). Every tag carries the AI's mark — an "AI" badge
// and a frame in the AI's colour (overlays.css, drawn by CSS so the tag's text stays the label's)
// that none of the viewer's own messages wear — so a label such as "STOP is disabled by the
// administrator" reads as the AI's words.
import type { Overlay } from '@overlay-companion/protocol';
import type { LabelItem } from './overlayFrame.js';
import { placeLabel, type Box } from './labelPlacement.js';
import { AI_MARK, labelFont, labelMaxWidth, labelSize } from './labelText.js';

interface Tag {
  element: HTMLSpanElement;
  overlay: Overlay;
  /** Everything the tag's look depends on besides its overlay; unchanged means untouched. */
  key: string;
  seen: number;
  /** Where the tag is (area pixels), for the layer's coverage (coverLimit.ts). */
  box: Box;
}

export class LabelTags {
  readonly #container: HTMLElement;
  readonly #tags = new Map<string, Tag>();
  #frame = 0;

  constructor(container: HTMLElement) {
    this.#container = container;
  }

  /**
   * Shows exactly `items` (in drawing order), at view `scale` in an area of `area` CSS pixels;
   * returns where the tags are.
   */
  update(
    items: readonly LabelItem[],
    scale: number,
    area: { width: number; height: number },
    hovered: string | null,
  ): Box[] {
    const frame = ++this.#frame;
    const boxes: Box[] = [];
    for (const { overlay, rect } of items) {
      const text = overlay.label ?? '';
      const whole = overlay.overlay_id === hovered;
      const key = `${rect.x},${rect.y},${rect.width},${rect.height},${scale},${area.width},${area.height},${whole ? 1 : 0}`;
      let tag = this.#tags.get(overlay.overlay_id);
      if (tag !== undefined && tag.overlay === overlay && tag.key === key) {
        tag.seen = frame;
        boxes.push(tag.box);
        continue;
      }
      if (tag === undefined || tag.overlay !== overlay) {
        // New, or drawn again under its id (on top now): a fresh tag at the end of the pile.
        tag?.element.remove();
        const element = document.createElement('span');
        element.className = 'overlay-label';
        element.dataset.overlayLabel = overlay.overlay_id;
        element.dataset.mark = AI_MARK;
        element.textContent = text;
        this.#container.append(element);
        tag = { element, overlay, key: '', seen: frame, box: { x: 0, y: 0, width: 0, height: 0 } };
        this.#tags.set(overlay.overlay_id, tag);
      }
      tag.key = key;
      tag.seen = frame;
      const size = labelSize(text, scale, area.width, whole);
      const at = placeLabel(rect, size, area);
      const el = tag.element;
      el.classList.toggle('overlay-label--whole', whole);
      el.dataset.side = at.side;
      el.style.left = `${at.x}px`;
      el.style.top = `${at.y}px`;
      // Whole: wrapped, at least as wide as the cut tag was (never narrower than 60ch).
      el.style.maxWidth = whole
        ? `min(max(60ch, ${labelMaxWidth(area.width)}px), 100%)`
        : `${size.width}px`;
      el.style.font = labelFont(size.fontSize);
      tag.box = { x: at.x, y: at.y, width: size.width, height: size.height };
      boxes.push(tag.box);
    }
    for (const [id, tag] of this.#tags) {
      if (tag.seen === frame) continue;
      tag.element.remove();
      this.#tags.delete(id);
    }
    return boxes;
  }

  /** Removes every tag (the layer unmounts). */
  clear(): void {
    for (const tag of this.#tags.values()) tag.element.remove();
    this.#tags.clear();
  }
}
