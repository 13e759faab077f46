// Which string arguments of a tool may be logged as they are. Every top-level string argument
// (enums aside: they are chosen from a list) is either the person's text — named in the
// definition's `sensitiveArgs`, so the audit keeps its length and not its content — or a schema
// that says, where it is defined, why it is not (`plainText(schema, why)`: the AI's own words,
// an id, a key name). unmarkedTextArgs finds the ones that are neither; the registry's test runs
// it over every tool, so a new tool that carries free text cannot be added unmarked.
import { z } from 'zod';
import type { ToolDefinition } from './define.js';

/** Schemas of strings that are never the person's text, with why (read by unmarkedTextArgs). */
const plainTextSchemas = z.registry<{ why: string }>();

/**
 * Marks a string schema as never carrying the person's text, so the audit may keep it as it is.
 * The mark follows the schema through `.describe()`, `.optional()` and the like.
 */
export function plainText<S extends z.ZodType>(schema: S, why: string): S {
  plainTextSchemas.add(schema, { why });
  return schema;
}

/** Why `schema` (or a schema it wraps) is not the person's text; undefined when unmarked. */
function plainTextReason(schema: z.ZodType): string | undefined {
  let current: z.ZodType | undefined = schema;
  while (current !== undefined) {
    const mark = plainTextSchemas.get(current);
    if (mark !== undefined) return mark.why;
    current = (current.def as { innerType?: z.ZodType }).innerType;
  }
  return undefined;
}

/** The schema under optional/default/nullable/readonly wrappers. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const inner = (current.def as { innerType?: z.ZodType }).innerType;
    if (inner === undefined) return current;
    current = inner;
  }
}

/** The top-level string arguments of a tool's input (enums are not strings here). */
export function stringArgs(definition: Pick<ToolDefinition, 'input'>): string[] {
  const input = unwrapped(definition.input);
  if (!(input instanceof z.ZodObject)) return [];
  return Object.entries(input.shape as Record<string, z.ZodType>)
    .filter(([, field]) => unwrapped(field).def.type === 'string')
    .map(([name]) => name);
}

/**
 * String arguments that are neither marked sensitive in the definition nor plain text where
 * their schema is defined: each must become one or the other before the tool can ship.
 */
export function unmarkedTextArgs(
  definition: Pick<ToolDefinition, 'input' | 'sensitiveArgs'>,
): string[] {
  const sensitive = new Set(definition.sensitiveArgs ?? []);
  const input = unwrapped(definition.input);
  if (!(input instanceof z.ZodObject)) return [];
  const shape = input.shape as Record<string, z.ZodType>;
  return stringArgs(definition).filter((name) => {
    const field = shape[name];
    return !sensitive.has(name) && (field === undefined || plainTextReason(field) === undefined);
  });
}
