// What a failed request looks like on the pages: the bridge's own sentence (it says what to do),
// with the time to try again when the bridge asked to wait, and per-field messages for forms —
// both from the bridge (ApiError.field) and from checking a form with the protocol's schemas
// before sending it.
import { ApiRequestError } from '../../net/api.js';
import { retryClockTime } from './time.js';

/** The sentence to show for any error a request threw. */
export function errorText(thrown: unknown, now: number = Date.now()): string {
  if (thrown instanceof ApiRequestError) {
    if (thrown.retryAfterMs !== undefined && thrown.retryAfterMs > 0) {
      return `${thrown.message} You can try again at ${retryClockTime(thrown.retryAfterMs, now)}.`;
    }
    return thrown.message;
  }
  if (thrown instanceof Error) return thrown.message;
  return String(thrown);
}

/** The sign-in form's sentence: a 429 is the brute-force ban, said plainly with its end. */
export function signInErrorText(thrown: unknown, now: number = Date.now()): string {
  if (thrown instanceof ApiRequestError && thrown.status === 429) {
    return thrown.retryAfterMs !== undefined
      ? `Too many failed sign-ins; try again at ${retryClockTime(thrown.retryAfterMs, now)}.`
      : 'Too many failed sign-ins; wait a few minutes and try again.';
  }
  return errorText(thrown, now);
}

/** A form's errors: one for the whole form, and one per field (by the API's field name). */
export interface FormErrors {
  form: string | null;
  fields: Readonly<Record<string, string>>;
}

export const NO_ERRORS: FormErrors = { form: null, fields: {} };

/**
 * The errors of a failed submit: a refusal naming a field known to the form goes under that
 * field; everything else goes on top of the form.
 */
export function formErrorsFrom(
  thrown: unknown,
  knownFields: readonly string[],
  now: number = Date.now(),
): FormErrors {
  const text = errorText(thrown, now);
  if (thrown instanceof ApiRequestError && thrown.field && knownFields.includes(thrown.field)) {
    return { form: null, fields: { [thrown.field]: text } };
  }
  return { form: text, fields: {} };
}

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * The protocol schemas' issues as per-field sentences, e.g. "Password must be at least 10
 * characters" (the schemas' messages are written to follow the field's label).
 */
export function fieldErrorsFromIssues(
  issues: readonly Issue[],
  labels: Readonly<Record<string, string>>,
): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const field = String(issue.path[0] ?? '');
    if (fields[field] !== undefined) continue;
    const label = labels[field] ?? field;
    fields[field] = `${label} ${issue.message}.`;
  }
  return fields;
}
