// The tab's cue that the AI asks the person to point something out: while a request_annotation
// is open the title starts with TEACH_TITLE_PREFIX, even when something else (the approval
// count in ui/attention.ts) rewrites the title meanwhile; it goes again when the request closes.
import type { StoreApi } from 'zustand/vanilla';
import type { TeachState } from './teachStore.js';

export const TEACH_TITLE_PREFIX = '✎ Point something out — ';

/** `title` with the cue when `open`, without it otherwise. */
export function teachTitle(title: string, open: boolean): string {
  const bare = title.startsWith(TEACH_TITLE_PREFIX)
    ? title.slice(TEACH_TITLE_PREFIX.length)
    : title;
  return open ? `${TEACH_TITLE_PREFIX}${bare}` : bare;
}

/** Keeps `doc`'s title in step with `store`; returns the undo. */
export function watchTeachTitle(store: StoreApi<TeachState>, doc: Document): () => void {
  let open = store.getState().request !== null;
  const apply = () => {
    const wanted = teachTitle(doc.title, open);
    if (doc.title !== wanted) doc.title = wanted;
  };
  // Someone else set the title while a request is open: put the cue back in front.
  const observer = new MutationObserver(() => {
    if (open) apply();
  });
  observer.observe(doc.head, { subtree: true, childList: true, characterData: true });
  const unsubscribe = store.subscribe((s) => {
    const now = s.request !== null;
    if (now === open) return;
    open = now;
    apply();
  });
  apply();
  return () => {
    unsubscribe();
    observer.disconnect();
    open = false;
    apply();
  };
}
