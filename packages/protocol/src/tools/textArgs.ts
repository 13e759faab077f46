// Which strings in a tool's arguments may be logged as they are. Every string (enums aside: they
// are chosen from a list), at any depth, is either the person's text — a top-level argument
// named in the definition's `sensitiveArgs`, so the audit keeps its length and not its content
// — or a schema that says, where it is defined, why it is not (`plainText(schema, why)`: the
// AI's own words, an id, a key name). unmarkedTextArgs finds the ones that are neither; its test
// runs it over every tool, so a new tool that carries free text cannot be added unmarked.
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
 * Paths of the strings inside `schema` that no plainText mark covers: `""` for `schema` itself,
 * `.name` into objects, `[]` into arrays and records; unions and pipes are walked on every side
 * (lazy schemas are not: no tool argument is recursive).
 */
function unmarkedStrings(schema: z.ZodType): string[] {
  if (plainTextReason(schema) !== undefined) return [];
  const inner = unwrapped(schema);
  if (inner !== schema) return unmarkedStrings(inner);
  const def = schema.def as {
    type: string;
    shape?: Record<string, z.ZodType>;
    element?: z.ZodType;
    valueType?: z.ZodType;
    options?: readonly z.ZodType[];
    in?: z.ZodType;
    out?: z.ZodType;
    left?: z.ZodType;
    right?: z.ZodType;
  };
  switch (def.type) {
    // Free-form values (and recursive ones, not walked) may hold any text: they need a mark too.
    case 'string':
    case 'unknown':
    case 'any':
    case 'lazy':
      return [''];
    case 'object':
      return Object.entries(def.shape ?? {}).flatMap(([key, field]) =>
        unmarkedStrings(field).map((path) => `.${key}${path}`),
      );
    case 'array':
      return def.element === undefined
        ? []
        : unmarkedStrings(def.element).map((path) => `[]${path}`);
    case 'record':
      return def.valueType === undefined
        ? []
        : unmarkedStrings(def.valueType).map((path) => `[]${path}`);
    default:
      return [def.options, [def.in, def.out], [def.left, def.right]]
        .flat()
        .filter((part): part is z.ZodType => part !== undefined)
        .flatMap((part) => unmarkedStrings(part));
  }
}

/**
 * Arguments holding strings that are neither marked sensitive in the definition nor plain text
 * where their schema is defined, as paths (`text`, `items[].note`): each must become one or the
 * other before the tool can ship. Only a top-level string can be marked sensitive (the audit
 * redacts whole top-level strings), so text nested in an object or array must be plain text, or
 * the tool must take it as a top-level argument.
 */
export function unmarkedTextArgs(
  definition: Pick<ToolDefinition, 'input' | 'sensitiveArgs'>,
): string[] {
  const sensitive = new Set(definition.sensitiveArgs ?? []);
  const input = unwrapped(definition.input);
  if (!(input instanceof z.ZodObject)) return unmarkedStrings(definition.input);
  return Object.entries(input.shape as Record<string, z.ZodType>).flatMap(([name, field]) =>
    sensitive.has(name) && unwrapped(field).def.type === 'string'
      ? []
      : unmarkedStrings(field).map((path) => `${name}${path}`),
  );
}
