// A destructive action in two steps: the first press asks (in words, next to the button), the
// second does it. Focus lands on Cancel, so a stray Enter does nothing harmful, and returns to
// the first button when the question is dismissed.
import { useEffect, useRef, useState } from 'react';

export interface ConfirmButtonProps {
  /** The first button, e.g. "Revoke". */
  label: string;
  /** Its accessible name when the visible label is not enough, e.g. "Revoke laptop". */
  accessibleLabel?: string;
  /** The question, e.g. 'Revoke "laptop"? Clients using it stop working at once.' */
  question: string;
  /** The button that does it, e.g. "Revoke token". */
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
}

export function ConfirmButton({
  label,
  accessibleLabel,
  question,
  confirmLabel,
  onConfirm,
  disabled,
}: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const first = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (asking) cancel.current?.focus();
    else if (wasAsking.current) first.current?.focus();
    wasAsking.current = asking;
  }, [asking]);

  if (!asking) {
    return (
      <button
        ref={first}
        type="button"
        className="button button--danger-quiet"
        aria-label={accessibleLabel}
        aria-disabled={disabled}
        onClick={() => {
          if (!disabled) setAsking(true);
        }}
      >
        {label}
      </button>
    );
  }
  return (
    <span
      className="confirm"
      role="group"
      aria-label={question}
      onKeyDown={(event) => {
        if (event.key === 'Escape') setAsking(false);
      }}
    >
      <span className="confirm__question">{question}</span>
      <button
        type="button"
        className="button button--danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button ref={cancel} type="button" className="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
