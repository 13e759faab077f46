// Tells screen readers when an approval waits: a live region that exists from page load (a
// region that appears together with its text is often not read) and says what the front
// request is, and how many wait behind it.
import { useStore } from 'zustand';
import { confirmationStore } from '../store/pendingConfirmations.js';
import { describeConfirmation } from './describe.js';

export function ApprovalAnnouncer() {
  const text = useStore(confirmationStore, (s) => {
    const first = s.pending[0];
    if (first === undefined) return '';
    const more = s.pending.length > 1 ? ` ${s.pending.length - 1} more waiting.` : '';
    return `Approval needed: ${describeConfirmation(first.details).title}. Press Ctrl+Alt+Shift to leave the desktop, then Tab to the panel.${more}`;
  });
  return (
    <div className="visually-hidden" aria-live="assertive" data-testid="approval-announcer">
      {text}
    </div>
  );
}
