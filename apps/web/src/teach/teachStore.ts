// The teach-mode request the person is answering, if any: the AI's prompt, the area it asks
// about, the items drawn so far (whole desktop pixels, in the order added, each with its note),
// the message the panel shows about the last refusal, and the person's answer once given.
// Written by the interaction layer and the panel (the person's events) and by
// AnnotationRequests (open and close); AnnotationRequests settles the tool call from `outcome`.
import { MAX_ANNOTATION_NOTE_CHARS } from '@overlay-companion/protocol';
import type { PrivacyMask } from '@overlay-companion/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { maskHit, type DesktopItem } from './geometry.js';

export interface TeachItem extends DesktopItem {
  /** Stable for the request's life: React keys and the numbers drawn on the layer. */
  key: number;
  /** Plain text as typed, at most MAX_ANNOTATION_NOTE_CHARS. */
  note: string;
}

/** How the person ended the request. */
export type TeachOutcome = 'done' | 'cancel';

/** The area the AI asks about, in desktop pixels, and how it named it. */
export interface AskedArea {
  x: number;
  y: number;
  width: number;
  height: number;
  /** E.g. "monitor 1" when the AI gave monitor_index; null for desktop coordinates. */
  monitorLabel: string | null;
}

export interface TeachRequest {
  id: number;
  /** The AI's words, shown as plain text. */
  prompt: string;
  area: AskedArea | null;
  maxItems: number;
  /** Privacy masks when the request opened: nothing may be drawn over them. */
  masks: readonly PrivacyMask[];
  openedAt: number;
  deadlineAt: number;
  items: readonly TeachItem[];
  /** Why the last item was refused, for the panel's status line; null when all is well. */
  notice: string | null;
  /** Set once by Done or Cancel; AnnotationRequests then answers the AI and closes. */
  outcome: TeachOutcome | null;
}

export type OpenRequest = Pick<
  TeachRequest,
  'id' | 'prompt' | 'area' | 'maxItems' | 'masks' | 'openedAt' | 'deadlineAt'
>;

export interface TeachState {
  request: TeachRequest | null;
  requestOpened: (request: OpenRequest) => void;
  /** The person drew `item`; false (and a notice) when it is refused. */
  itemAdded: (item: DesktopItem) => boolean;
  itemRemoved: (key: number) => void;
  noteChanged: (key: number, note: string) => void;
  personFinished: (outcome: TeachOutcome) => void;
  requestClosed: (id: number) => void;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function createTeachStore(): StoreApi<TeachState> {
  let nextKey = 1;
  return createStore<TeachState>()((set, get) => {
    /** Applies `change` to the open request, if there is one that is still being answered. */
    const update = (change: (r: TeachRequest) => Partial<TeachRequest>) => {
      const r = get().request;
      if (r === null || r.outcome !== null) return;
      set({ request: { ...r, ...change(r) } });
    };
    return {
      request: null,
      requestOpened: (open) =>
        set({ request: { ...open, items: [], notice: null, outcome: null } }),
      itemAdded: (item) => {
        const r = get().request;
        if (r === null || r.outcome !== null) return false;
        if (r.items.length >= r.maxItems) {
          update(() => ({
            notice: `The AI asked for at most ${plural(r.maxItems, 'item')}. Remove one to add another, or press Done.`,
          }));
          return false;
        }
        const mask = maskHit(item, r.masks);
        if (mask !== undefined) {
          const name = mask.label === undefined ? '' : ` “${mask.label}”`;
          update(() => ({
            notice: `That touches your private area${name}, which the AI never sees. Draw outside it.`,
          }));
          return false;
        }
        const added: TeachItem = { ...item, key: nextKey++, note: '' };
        update((now) => ({ items: [...now.items, added], notice: null }));
        return true;
      },
      itemRemoved: (key) =>
        update((r) => ({ items: r.items.filter((i) => i.key !== key), notice: null })),
      noteChanged: (key, note) =>
        update((r) => ({
          items: r.items.map((i) =>
            i.key === key ? { ...i, note: note.slice(0, MAX_ANNOTATION_NOTE_CHARS) } : i,
          ),
        })),
      personFinished: (outcome) => {
        const r = get().request;
        if (r === null || r.outcome !== null) return;
        set({ request: { ...r, outcome } });
      },
      requestClosed: (id) => {
        if (get().request?.id === id) set({ request: null });
      },
    };
  });
}

export const teachStore = createTeachStore();
