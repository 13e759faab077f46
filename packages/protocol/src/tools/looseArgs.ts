// The seed's loose object arguments (`filter`, `metadata`, `action_timing_hint`): keys we do not
// know are accepted, not refused, and reported back in the result's `ignored` field so the AI
// learns they had no effect. Which fields are loose, and which keys they know, is part of each
// tool's definition (`looseObjects`); unknown top-level arguments are still refused by the
// strict input schema.
import { z } from 'zod';

/** Most ignored keys one result lists. */
export const MAX_IGNORED_KEYS = 32;

/** The `ignored` result field of tools with loose arguments. */
export const IgnoredKeys = z
  .array(z.string().max(200))
  .max(MAX_IGNORED_KEYS)
  .optional()
  .describe(
    'Keys of loose object arguments this server does not know, e.g. "action_timing_hint.speed": accepted, but they had no effect. Absent when there were none.',
  );

/**
 * The unknown keys in `rawArgs`' loose object fields, as "field.key" paths, sorted, at most
 * MAX_IGNORED_KEYS (the arguments were already validated, so only objects are looked at).
 */
export function ignoredArgs(
  looseObjects: Readonly<Record<string, readonly string[]>> | undefined,
  rawArgs: unknown,
): string[] {
  if (looseObjects === undefined || typeof rawArgs !== 'object' || rawArgs === null) return [];
  const ignored: string[] = [];
  for (const [field, known] of Object.entries(looseObjects)) {
    const value: unknown = (rawArgs as Record<string, unknown>)[field];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    for (const key of Object.keys(value)) {
      if (!known.includes(key)) ignored.push(`${field}.${key.slice(0, 100)}`);
    }
  }
  return ignored.sort().slice(0, MAX_IGNORED_KEYS);
}
