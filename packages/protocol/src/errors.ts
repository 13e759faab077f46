// Error kinds shared by the bridge (MCP results) and the viewer (tool_error), what each means
// and what the AI should do next, and formatZodIssues, which turns zod issues into one sentence
// that names every bad field.
import { z } from 'zod';

export const ERROR_KINDS = [
  'invalid_parameters',
  'permission_denied',
  'system_error',
  'rate_limited',
  'viewer_unavailable',
  'timeout',
  'cancelled',
] as const;
export const ErrorKind = z.enum(ERROR_KINDS);
export type ErrorKind = z.infer<typeof ErrorKind>;

/** One sentence per kind telling the AI what to do next; append it to error messages. */
export const ERROR_HINTS: Readonly<Record<ErrorKind, string>> = {
  invalid_parameters: 'Fix the named fields and call the tool again.',
  permission_denied:
    "The person's mode or answer does not allow this; ask them, or use set_mode to request more access.",
  system_error: 'Something failed in the viewer or on the desktop; take a screenshot and retry.',
  rate_limited: 'Too many calls; wait retry_after_ms milliseconds before trying again.',
  viewer_unavailable:
    'No viewer can run the call right now; with retry_after_ms, wait that long and call again (it is coming back), otherwise ask the person to open the Overlay Companion viewer.',
  timeout: 'The viewer did not answer in time; check with a screenshot before retrying.',
  cancelled: 'The call was cancelled (the person pressed Stop or the request was aborted).',
};

export const MAX_ERROR_MESSAGE_LENGTH = 2000;

/** A structured error as it crosses the wire (inside tool_error) or is logged. */
export const ProtocolErrorInfo = z.strictObject({
  kind: ErrorKind,
  message: z.string().min(1).max(MAX_ERROR_MESSAGE_LENGTH),
  retry_after_ms: z
    .int()
    .min(0)
    .max(3_600_000)
    .optional()
    .describe(
      'For rate_limited, and viewer_unavailable while the viewer or its desktop comes back: how long to wait before retrying.',
    ),
});
export type ProtocolErrorInfo = z.infer<typeof ProtocolErrorInfo>;

/**
 * Thrown inside the bridge and viewer handlers; carries a kind so the edge can report it.
 * `message` should say what went wrong; `hint` (from ERROR_HINTS) says what to do next.
 */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  get hint(): string {
    return ERROR_HINTS[this.kind];
  }

  toInfo(): ProtocolErrorInfo {
    const message = this.message.slice(0, MAX_ERROR_MESSAGE_LENGTH) || this.kind;
    return this.retryAfterMs === undefined
      ? { kind: this.kind, message }
      : { kind: this.kind, message, retry_after_ms: this.retryAfterMs };
  }
}

type Issue = z.core.$ZodIssue;

/** "overlays[2].x", or "(root)" for the value itself. */
function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

function describeType(expected: string): string {
  switch (expected) {
    case 'int':
      return 'an integer';
    case 'object':
    case 'array':
      return `an ${expected}`;
    default:
      return `a ${expected}`;
  }
}

function bound(
  origin: string,
  limit: number | bigint,
  inclusive: boolean | undefined,
  dir: 'min' | 'max',
): string {
  const n = String(limit);
  const plural = (word: string) => (n === '1' ? `${n} ${word}` : `${n} ${word}s`);
  switch (origin) {
    case 'string':
      return `must be ${dir === 'min' ? 'at least' : 'at most'} ${plural('character')}`;
    case 'array':
    case 'set':
      return `must have ${dir === 'min' ? 'at least' : 'at most'} ${plural('item')}`;
    default: {
      const op =
        dir === 'min' ? (inclusive === false ? '>' : '≥') : inclusive === false ? '<' : '≤';
      return `must be ${op} ${n}`;
    }
  }
}

function quoteList(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
}

/** The readable phrase for one issue, without its path: "must be an integer", "is required". */
function describeIssue(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      // zod reports a missing field as invalid_type; only its message says the input was absent.
      if (issue.message.endsWith('received undefined')) return 'is required';
      return `must be ${describeType(issue.expected)}`;
    case 'too_small':
      return bound(issue.origin, issue.minimum, issue.inclusive, 'min');
    case 'too_big':
      return bound(issue.origin, issue.maximum, issue.inclusive, 'max');
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${quoteList(issue.values)}`
        : `must be one of ${quoteList(issue.values)}`;
    case 'invalid_format':
      if (issue.format === 'regex' || issue.format === 'base64') return issue.message;
      return `must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return 'is not a known field'; // formatted per key by formatZodIssues
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      if (Array.isArray(options)) return `must be one of ${quoteList(options)}`;
      return describeUnion((issue as { errors?: Issue[][] }).errors);
    }
    case 'invalid_key':
      return 'has an invalid key';
    case 'invalid_element':
      return 'has an invalid element';
    case 'custom':
      return issue.message;
  }
}

/**
 * A value no form of a union accepted. When it had the right type for one form but broke that
 * form's rules (a number over the maximum), say what that form needs; else list the types.
 */
function describeUnion(branches: Issue[][] | undefined): string {
  if (branches === undefined || branches.length === 0) return 'does not match any accepted form';
  const wrongType = (b: Issue[]) =>
    b.length === 1 && b[0]?.code === 'invalid_type' && b[0].path.length === 0;
  const near = branches.find((b) => b.length > 0 && !wrongType(b));
  if (near !== undefined) {
    return near
      .map((i) => `${i.path.length > 0 ? `${formatIssuePath(i.path)}: ` : ''}${describeIssue(i)}`)
      .join('; ');
  }
  const types = branches.map((b) => {
    const first = b[0];
    return first?.code === 'invalid_type' ? describeType(first.expected) : 'another form';
  });
  return `must be ${[...new Set(types)].join(' or ')}`;
}

const MISSING = Symbol('missing');

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return MISSING;
    if (!Object.hasOwn(current, key)) return MISSING;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current === undefined ? MISSING : current;
}

export interface FormatIssuesOptions {
  /**
   * The value that was parsed. When given, a field that is absent is reported as "is required"
   * for every issue kind (zod reports a missing enum as a bad value, for instance).
   */
  input?: unknown;
  /** Issues listed before "and N more" (default 10). */
  maxIssues?: number;
}

/**
 * One sentence naming each bad field, e.g.
 * "x: must be an integer; color: must be a CSS color name …; foo: is not a known field".
 * Unknown keys are listed under their own path so the caller sees exactly which field to drop.
 */
export function formatZodIssues(
  error: z.ZodError | readonly Issue[],
  options: FormatIssuesOptions = {},
): string {
  const issues = Array.isArray(error) ? (error as readonly Issue[]) : (error as z.ZodError).issues;
  const checkMissing = 'input' in options;
  const parts: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        parts.push(`${formatIssuePath([...issue.path, key])}: is not a known field`);
      }
      continue;
    }
    let text = describeIssue(issue);
    const typeLike =
      issue.code === 'invalid_type' ||
      issue.code === 'invalid_value' ||
      issue.code === 'invalid_union';
    if (typeLike && checkMissing && valueAt(options.input, issue.path) === MISSING) {
      text = text === 'is required' ? text : `is required (${text})`;
    }
    parts.push(`${formatIssuePath(issue.path)}: ${text}`);
  }
  if (parts.length === 0) return 'invalid value';
  const maxIssues = options.maxIssues ?? 10;
  const shown = parts.slice(0, maxIssues);
  const more = parts.length - shown.length;
  return shown.join('; ') + (more > 0 ? `; and ${more} more` : '');
}
