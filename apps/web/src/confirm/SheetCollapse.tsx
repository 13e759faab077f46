// The approval sheet's "Show less" switch on a phone: the bottom sheet (confirmPanel.css, under
// 600 px) covers most of the picture, and so the crosshair the person must judge; collapsed, it
// keeps only the question, the magnifier and the answers, and the picture above shows again.
// Collapsing holds for one request: the next one opens whole, so its facts are never hidden
// before the person saw them. The panel reads the state from this button's aria-expanded
// (`.confirm-panel:has(...)` in confirmPanel.css); wider windows never show the switch.
import { useState } from 'react';

/** The id of what the switch hides (ConfirmDialog's facts), for aria-controls. */
const FACTS_ID = 'confirm-facts';

export function SheetCollapse({ requestId }: { requestId: string }) {
  // The request it was collapsed for: another request at the front is shown whole.
  const [collapsedFor, setCollapsedFor] = useState<string | null>(null);
  const collapsed = collapsedFor === requestId;
  return (
    <button
      type="button"
      className="sheet-collapse"
      data-testid="sheet-collapse"
      aria-expanded={!collapsed}
      aria-controls={FACTS_ID}
      onClick={() => setCollapsedFor(collapsed ? null : requestId)}
    >
      {collapsed ? 'Show more' : 'Show less'}
    </button>
  );
}
