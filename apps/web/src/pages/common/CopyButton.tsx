// A "Copy" button with its outcome announced next to it ("Copied", or how to copy by hand).
import { useEffect, useState } from 'react';
import { copyText } from './copyText.js';

export interface CopyButtonProps {
  text: string;
  /** The button's accessible name, e.g. "Copy the client configuration". */
  label: string;
  /** Visible text; defaults to "Copy". */
  children?: string;
}

export function CopyButton({ text, label, children = 'Copy' }: CopyButtonProps) {
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  useEffect(() => {
    if (outcome === null || !outcome.ok) return undefined;
    const timer = setTimeout(() => setOutcome(null), 4000);
    return () => clearTimeout(timer);
  }, [outcome]);
  return (
    <span className="copy">
      <button
        type="button"
        className="button"
        aria-label={label}
        onClick={() => {
          copyText(text).then(
            () => setOutcome({ ok: true, text: 'Copied.' }),
            (thrown: unknown) =>
              setOutcome({
                ok: false,
                text: thrown instanceof Error ? thrown.message : String(thrown),
              }),
          );
        }}
      >
        {children}
      </button>
      <span
        className={outcome?.ok === false ? 'copy__note copy__note--error' : 'copy__note'}
        role="status"
      >
        {outcome?.text ?? ''}
      </span>
    </span>
  );
}

/** Text to copy, shown whole and selectable; a focusable region so keyboards can scroll it. */
export function CodeBlock({ text, label }: { text: string; label: string }) {
  return (
    <pre className="code" tabIndex={0} aria-label={label}>
      {text}
    </pre>
  );
}
