// Form fields with real labels: the label names the input, a hint and an error are tied to it
// with aria-describedby, and an invalid field says so (aria-invalid) so assistive technology and
// Playwright's getByLabel find the same thing a person sees.
import type { ReactNode, Ref } from 'react';

interface FieldBase {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
  disabled?: boolean;
}

export interface TextFieldProps extends FieldBase {
  value: string;
  onChange: (value: string) => void;
  type?: 'text' | 'password' | 'number' | 'date' | 'search';
  autoComplete?: string;
  required?: boolean;
  min?: number;
  max?: number;
  maxLength?: number;
  inputMode?: 'numeric' | 'text';
  inputRef?: Ref<HTMLInputElement>;
  spellCheck?: boolean;
  placeholder?: string;
  /** Say "(optional)" after the label of a field that is not required (default true). */
  markOptional?: boolean;
}

function describedBy(id: string, hint: unknown, error: string | undefined): string | undefined {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length > 0 ? ids.join(' ') : undefined;
}

function FieldNotes({
  id,
  hint,
  error,
}: {
  id: string;
  hint: ReactNode;
  error?: string | undefined;
}) {
  return (
    <>
      {hint ? (
        <p id={`${id}-hint`} className="field__hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field__error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}

export function TextField({
  id,
  label,
  error,
  hint,
  value,
  onChange,
  type = 'text',
  required = false,
  inputRef,
  markOptional = true,
  ...rest
}: TextFieldProps) {
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label}
        {required || !markOptional ? null : <span className="field__optional"> (optional)</span>}
      </label>
      <input
        {...rest}
        ref={inputRef}
        id={id}
        name={id}
        type={type}
        value={value}
        required={required}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        onChange={(event) => onChange(event.target.value)}
        className="field__input"
      />
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

export interface SelectFieldProps<V extends string> extends FieldBase {
  value: V;
  onChange: (value: V) => void;
  options: readonly { value: V; label: string }[];
}

export function SelectField<V extends string>({
  id,
  label,
  error,
  hint,
  value,
  onChange,
  options,
  disabled,
}: SelectFieldProps<V>) {
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <select
        id={id}
        name={id}
        value={value}
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        // The options are the only values offered, so the cast names what the select can hold.
        onChange={(event) => onChange(event.target.value as V)}
        className="field__input"
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

export interface CheckboxFieldProps {
  id: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: ReactNode;
  disabled?: boolean;
  /** Being saved: announced, and still focusable (a disabled input would drop the focus). */
  busy?: boolean;
}

export function CheckboxField({
  id,
  label,
  checked,
  onChange,
  hint,
  disabled,
  busy,
}: CheckboxFieldProps) {
  return (
    <div className="toggle">
      <input
        id={id}
        name={id}
        type="checkbox"
        checked={checked}
        disabled={disabled}
        aria-busy={busy}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(event) => onChange(event.target.checked)}
        className="toggle__input"
      />
      <label htmlFor={id} className="toggle__label">
        {label}
      </label>
      {hint ? (
        <p id={`${id}-hint`} className="toggle__hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
