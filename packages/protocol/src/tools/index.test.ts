import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BRIDGE_TOOL_NAMES,
  INPUT_POLICY_TOOLS,
  TOOL_NAMES,
  VIEWER_TOOL_NAMES,
  needsInputPolicy,
} from './names.js';
import { TOOL_FAMILIES, toolDefinitions, toolList } from './index.js';
import { ignoredArgs } from './looseArgs.js';
import { ToolCallMessage } from '../messages.js';

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
  it('has one definition per tool name, under its own name, and every set derives from it', () => {
    expect(Object.keys(toolDefinitions)).toEqual(TOOL_NAMES);
    expect(toolList.map((d) => d.name)).toEqual(TOOL_NAMES);
    for (const def of toolList) {
      expect(toolDefinitions[def.name]).toBe(def);
      expect(TOOL_FAMILIES).toContain(def.kind);
      expect(needsInputPolicy(def.name)).toBe(def.policyClass !== 'free');
      expect(def.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(def.budgetMs).toBeTypeOf('function');
      expect(def.summarize).toBeTypeOf('function');
    }
    expect([...VIEWER_TOOL_NAMES, ...BRIDGE_TOOL_NAMES].sort()).toEqual([...TOOL_NAMES].sort());
    // Every input tool needs a toggle the person can turn off.
    for (const name of INPUT_POLICY_TOOLS) expect(toolDefinitions[name].permission).toBeDefined();
  });

  it('puts exactly the viewer tools on the wire as tool_call variants', () => {
    const onWire = ToolCallMessage.options.map((o) => o.shape.name.value).sort();
    expect(onWire).toEqual([...VIEWER_TOOL_NAMES].sort());
    for (const name of BRIDGE_TOOL_NAMES) expect(onWire).not.toContain(name);
  });

  it('reports unknown keys of loose arguments, and only tools with them have an ignored field', () => {
    for (const def of toolList) {
      const hasIgnored = 'ignored' in def.result.shape;
      expect(hasIgnored, def.name).toBe(def.looseObjects !== undefined);
    }
    expect(
      ignoredArgs(toolDefinitions.click_at.looseObjects, {
        x: 1,
        y: 2,
        action_timing_hint: { delay_before_ms: 5, speed: 'fast', zeta: 1 },
      }),
    ).toEqual(['action_timing_hint.speed', 'action_timing_hint.zeta']);
    expect(
      ignoredArgs(toolDefinitions.click_at.looseObjects, { x: 1, y: 2, action_timing_hint: 50 }),
    ).toEqual([]);
    expect(
      ignoredArgs(toolDefinitions.subscribe_events.looseObjects, {
        events: ['mouse_click'],
        filter: { keys: ['a'], window: 'x' },
      }),
    ).toEqual(['filter.window']);
    expect(
      ignoredArgs(toolDefinitions.set_mode.looseObjects, {
        mode: 'custom',
        metadata: { allow: [], note: 'hi' },
      }),
    ).toEqual(['metadata.note']);
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
