// Test helper (used only by *.test.ts): runs accept/reject tables against a tool's input schema
// through parseToolArgs, so the asserted errors are exactly the text the AI would see.
import { expect, it } from 'vitest';
import { parseToolArgs } from '../toolParsing.js';
import type { ToolName } from '../tools/names.js';

export interface AcceptCase {
  args: unknown;
  /** Fields expected in the parsed value (e.g. defaults); checked with toMatchObject. */
  expect?: Record<string, unknown>;
}

export interface RejectCase {
  args: unknown;
  /** Substrings the error must contain, e.g. the field path and the rule. */
  error: string[];
}

export function schemaTable(name: ToolName, accept: AcceptCase[], reject: RejectCase[]): void {
  it.each(accept.map((c, i) => [i, c] as const))(`${name} accepts case %i`, (_i, c) => {
    const parsed = parseToolArgs(name, c.args);
    if (!parsed.ok) throw new Error(parsed.error);
    if (c.expect) expect(parsed.value).toMatchObject(c.expect);
  });
  it.each(reject.map((c, i) => [i, c] as const))(`${name} rejects case %i`, (_i, c) => {
    const parsed = parseToolArgs(name, c.args);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) for (const part of c.error) expect(parsed.error).toContain(part);
  });
}
