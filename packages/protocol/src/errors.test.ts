import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ERROR_HINTS,
  ERROR_KINDS,
  ProtocolError,
  ProtocolErrorInfo,
  formatZodIssues,
} from './errors.js';

function issuesOf(schema: z.ZodType, value: unknown) {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return parsed.error;
}

describe('formatZodIssues', () => {
  const Schema = z.strictObject({
    x: z.int().min(0),
    name: z.string().min(2).max(4),
    list: z.array(z.strictObject({ v: z.number().lt(10) })).max(2),
    kind: z.enum(['a', 'b']),
    one: z.literal('only').optional(),
  });

  it('names every field path with a readable rule', () => {
    const error = issuesOf(Schema, {
      x: -1,
      name: 'abcdef',
      list: [{ v: 1 }, { v: 10, w: 1 }],
      kind: 'c',
      one: 'other',
      extra: true,
      other: 1,
    });
    const text = formatZodIssues(error);
    expect(text).toContain('x: must be ≥ 0');
    expect(text).toContain('name: must be at most 4 characters');
    expect(text).toContain('list[1].v: must be < 10');
    expect(text).toContain('list[1].w: is not a known field');
    expect(text).toContain('kind: must be one of a, b');
    expect(text).toContain('one: must be only');
    expect(text).toContain('extra: is not a known field');
    expect(text).toContain('other: is not a known field');
    expect(text.split('; ').length).toBe(8);
    const tooLong = formatZodIssues(issuesOf(Schema.shape.list, [{ v: 1 }, { v: 1 }, { v: 1 }]));
    expect(tooLong).toBe('(root): must have at most 2 items');
  });

  it('says "must be an integer" and "is required"', () => {
    const error = issuesOf(Schema, { x: 0.5 });
    const text = formatZodIssues(error, { input: { x: 0.5 } });
    expect(text).toContain('x: must be an integer');
    expect(text).toContain('name: is required');
    expect(text).toContain('kind: is required (must be one of a, b)');
  });

  it('reports a non-object at the root and caps long lists', () => {
    expect(formatZodIssues(issuesOf(Schema, 7))).toBe('(root): must be an object');
    const many = z.array(z.string());
    const text = formatZodIssues(issuesOf(many, [1, 2, 3, 4, 5]), { maxIssues: 2 });
    expect(text).toBe('[0]: must be a string; [1]: must be a string; and 3 more');
  });

  it('keeps custom refinement messages', () => {
    const S = z.string().refine((s) => s === 'ok', { error: 'must say ok' });
    expect(formatZodIssues(issuesOf(z.object({ a: S }), { a: 'no' }))).toBe('a: must say ok');
  });
});

describe('ProtocolError', () => {
  it('has a distinct kind and a next-step hint for each kind', () => {
    expect(new Set(ERROR_KINDS).size).toBe(7);
    for (const kind of ERROR_KINDS) expect(ERROR_HINTS[kind].length).toBeGreaterThan(20);
  });

  it('serializes to ProtocolErrorInfo, with retry_after_ms for rate limits', () => {
    const limited = new ProtocolError('rate_limited', 'too many clicks', 1500);
    expect(limited.toInfo()).toEqual({
      kind: 'rate_limited',
      message: 'too many clicks',
      retry_after_ms: 1500,
    });
    expect(ProtocolErrorInfo.parse(limited.toInfo())).toEqual(limited.toInfo());
    expect(limited.hint).toContain('retry_after_ms');
    const denied = new ProtocolError('permission_denied', '');
    expect(denied.toInfo()).toEqual({ kind: 'permission_denied', message: 'permission_denied' });
    expect(denied).toBeInstanceOf(Error);
  });
});
