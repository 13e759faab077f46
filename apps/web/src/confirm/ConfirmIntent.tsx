// The AI's intent in the approval panel: its own sentence saying why it wants this action, shown
// above what will happen as plain text (React text, never markup), bounded and with any control
// character made visible (intentText). Nothing at all when the AI gave none.
import { intentText } from './describe.js';

export function ConfirmIntent({ intent }: { intent: string | undefined }) {
  const text = intentText(intent);
  if (text === undefined) return null;
  return (
    <p id="confirm-intent" className="confirm-panel__intent" data-testid="confirm-intent">
      <span className="confirm-panel__intent-label">The AI says why:</span>{' '}
      <q className="confirm-panel__intent-text">{text}</q>
    </p>
  );
}
