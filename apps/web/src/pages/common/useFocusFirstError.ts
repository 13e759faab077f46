// After a failed submit, put the keyboard on the first field marked invalid, so the person
// hears its error and can fix it without hunting for it.
import { useEffect, type RefObject } from 'react';
import type { FormErrors } from './errors.js';

export function useFocusFirstError(
  form: RefObject<HTMLFormElement | null>,
  errors: FormErrors,
): void {
  useEffect(() => {
    if (Object.keys(errors.fields).length === 0) return;
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [form, errors]);
}
