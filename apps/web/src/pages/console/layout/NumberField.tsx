// A whole-number field for the editor's exact values (positions, sizes): it shows the current
// value, applies each whole number in range as the person types it (so the picture follows), and
// goes back to the current value when left with something else in it.
import { useState } from 'react';

export interface NumberFieldProps {
  id: string;
  label: string;
  value: number;
  min: number;
  max: number;
  onCommit: (value: number) => void;
}

export function NumberField({ id, label, value, min, max, onCommit }: NumberFieldProps) {
  /** What the person is typing, while it is not a value to apply; null = show `value`. */
  const [typing, setTyping] = useState<string | null>(null);
  const parse = (text: string): number | null => {
    if (!/^\s*\d+\s*$/.test(text)) return null;
    const n = Number(text);
    return n >= min && n <= max ? n : null;
  };
  return (
    <div className="field layout-number">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <input
        id={id}
        name={id}
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        step={1}
        className="field__input field__input--compact"
        value={typing ?? String(value)}
        aria-invalid={typing !== null ? true : undefined}
        onChange={(event) => {
          const text = event.target.value;
          const n = parse(text);
          if (n === null) {
            setTyping(text);
          } else {
            setTyping(null);
            if (n !== value) onCommit(n);
          }
        }}
        onBlur={() => setTyping(null)}
      />
    </div>
  );
}
