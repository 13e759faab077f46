// When an approval waits, the tab says so even in the background: the title gets a count
// ("(2) Approval waiting — Overlay Companion") and the favicon a badge. Restored when none waits.
import type { StoreApi } from 'zustand/vanilla';
import type { ConfirmationState } from '../store/pendingConfirmations.js';
import type { ControlState } from '../store/control.js';

const BADGE_ICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'><rect width='32' height='32' rx='6' fill='#1b1e23'/><circle cx='16' cy='16' r='11' fill='#ffb020'/><text x='16' y='22' font-size='18' font-family='sans-serif' font-weight='700' text-anchor='middle' fill='#1b1e23'>!</text></svg>",
  );

/** The title for `waiting` pending approvals. */
export function attentionTitle(base: string, waiting: number): string {
  return waiting === 0 ? base : `(${waiting}) Approval waiting — ${base}`;
}

/**
 * Keep `doc`'s title and icon in step with the approvals waiting here (`store`) and, in a
 * mirror, in the person's control window (`control`).
 */
export function watchAttention(
  store: StoreApi<ConfirmationState>,
  control: StoreApi<ControlState>,
  doc: Document,
): () => void {
  const baseTitle = doc.title;
  let icon = doc.querySelector<HTMLLinkElement>('link[rel~="icon"]');
  const baseIcon = icon?.href ?? '';
  const apply = (waiting: number) => {
    doc.title = attentionTitle(baseTitle, waiting);
    if (icon === null) {
      icon = doc.createElement('link');
      icon.rel = 'icon';
      doc.head.appendChild(icon);
    }
    icon.href = waiting === 0 ? baseIcon : BADGE_ICON;
    icon.dataset.attention = waiting === 0 ? 'none' : 'waiting';
  };
  let shown = 0;
  const update = () => {
    const waiting = store.getState().pending.length + control.getState().approvalsElsewhere.length;
    if (waiting === shown) return;
    shown = waiting;
    apply(waiting);
  };
  const undoPending = store.subscribe(update);
  const undoElsewhere = control.subscribe(update);
  return () => {
    undoPending();
    undoElsewhere();
  };
}
