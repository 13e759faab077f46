// Every tool that types or copies text for the person marks the arguments carrying that text
// (sensitiveArgs), so the audit never keeps them unless the person chose to: a new tool with an
// unmarked text argument fails here. Arguments that are the AI's own words or key names, never
// the person's text, are named below with the reason.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { toolDefinitions } from './registry.js';

/** Text arguments that are not the person's text, with why. */
const NOT_THE_PERSONS_TEXT: Readonly<Record<string, string>> = {
  intent: "the AI's own reason, shown to the person and kept on purpose",
  keys: 'one key combo by name (ctrl+c, Return), not text typed',
};

/** The schema under optional/default/nullable wrappers. */
function inner(schema: z.ZodType): z.ZodType {
  let current = schema as z.ZodType & { def: { innerType?: z.ZodType } };
  while (current.def.innerType !== undefined) current = current.def.innerType;
  return current;
}

function stringArgs(input: z.ZodType): string[] {
  const shape = (inner(input) as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
  return Object.entries(shape)
    .filter(([, field]) => (inner(field) as { def: { type: string } }).def.type === 'string')
    .map(([name]) => name);
}

describe('sensitive arguments', () => {
  const typingTools = Object.values(toolDefinitions).filter(
    (d) => d.policyClass === 'keys' || d.policyClass === 'clipboard',
  );

  it('finds the tools that type or copy (so the check below has something to check)', () => {
    expect(typingTools.map((d) => d.name)).toEqual(
      expect.arrayContaining(['type_text', 'set_clipboard', 'press_key']),
    );
  });

  it.each(typingTools.map((d) => [d.name, d] as const))(
    '%s marks every text argument that is the person’s',
    (_name, definition) => {
      const marked = new Set(definition.sensitiveArgs ?? []);
      const unmarked = stringArgs(definition.input).filter(
        (arg) => !marked.has(arg) && !Object.hasOwn(NOT_THE_PERSONS_TEXT, arg),
      );
      expect(unmarked).toEqual([]);
      // And what is marked exists.
      for (const arg of marked) expect(stringArgs(definition.input)).toContain(arg);
    },
  );
});
