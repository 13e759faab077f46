import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_FAMILIES, TOOL_KINDS, TOOL_NAMES, needsInputPolicy } from './names.js';
import { toolDefinitions, toolList } from './index.js';

type JsonSchema = {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  additionalProperties?: unknown;
};

/** Paths of object properties that have no description, walking nested objects and arrays. */
function undescribed(schema: JsonSchema, path = ''): string[] {
  const missing: string[] = [];
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const here = path ? `${path}.${key}` : key;
    if (!prop.description) missing.push(here);
    missing.push(...undescribed(prop, here));
  }
  if (schema.items) missing.push(...undescribed(schema.items, `${path}[]`));
  for (const option of schema.anyOf ?? []) missing.push(...undescribed(option, path));
  return missing;
}

describe('tool registry', () => {
  it('has one definition per tool name, under its own name, with the agreed family', () => {
    expect(Object.keys(toolDefinitions)).toEqual(TOOL_NAMES);
    expect(toolList.map((d) => d.name)).toEqual(TOOL_NAMES);
    for (const def of toolList) {
      expect(toolDefinitions[def.name]).toBe(def);
      expect(def.kind).toBe(TOOL_KINDS[def.name]);
      expect(TOOL_FAMILIES).toContain(def.kind);
      expect(def.needsInputPolicy).toBe(needsInputPolicy(def.name));
      expect(def.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
    }
  });

  it.each(toolList.map((d) => [d.name, d] as const))('%s is documented for a model', (_n, def) => {
    expect(def.title.length).toBeGreaterThan(3);
    expect(def.description.length).toBeGreaterThan(80);
    expect(def.description.length).toBeLessThan(1200);
    expect(def.annotations.openWorldHint).toBe(false);
    if (def.annotations.readOnlyHint) expect(def.annotations.destructiveHint).toBe(false);
  });

  it('only take_screenshot has a viewer result different from its MCP result', () => {
    for (const def of toolList) {
      if (def.name === 'take_screenshot') expect(def.viewerResult).not.toBe(def.result);
      else expect(def.viewerResult).toBe(def.result);
    }
  });

  it.each(toolList.map((d) => [d.name, d] as const))(
    '%s converts to JSON Schema the way the MCP SDK does, every field described',
    (_n, def) => {
      // The SDK calls toJSONSchema with io "input" for inputSchema, "output" for outputSchema.
      for (const target of ['draft-7', 'draft-2020-12'] as const) {
        const input = z.toJSONSchema(def.input, { io: 'input', target }) as JsonSchema;
        const output = z.toJSONSchema(def.result, { io: 'output', target }) as JsonSchema;
        expect(input.type).toBe('object');
        expect(output.type).toBe('object');
        expect(input.additionalProperties).toBe(false);
        expect(undescribed(input)).toEqual([]);
        expect(undescribed(output)).toEqual([]);
      }
      z.toJSONSchema(def.viewerResult, { io: 'output' });
    },
  );

  it('optional-with-default fields are optional for the model but present after parsing', () => {
    const input = z.toJSONSchema(toolDefinitions.click_at.input, { io: 'input' }) as {
      required?: string[];
    };
    expect(input.required).toEqual(['x', 'y']);
  });
});
