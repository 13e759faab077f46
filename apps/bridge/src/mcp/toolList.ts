// tools/list entries built from the protocol's definitions: JSON Schemas from the zod schemas
// (draft-07, the dialect the MCP SDK emits and validates), the MCP annotations, and an
// outputSchema that admits either the tool's result or the error envelope. The envelope is in
// the schema because the SDK's client validates structuredContent even on isError results.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_KINDS } from '@overlay-companion/protocol';
import { z } from 'zod';
import type { BridgeTool } from './toolkit.js';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    unrepresentable: 'any',
  }) as JsonSchema;
  return rest;
}

const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: [...ERROR_KINDS] },
        message: { type: 'string' },
        retry_after_ms: { type: 'integer', minimum: 0 },
      },
      required: ['kind', 'message'],
      additionalProperties: false,
    },
  },
  required: ['error'],
  additionalProperties: false,
};

/**
 * Every tool but select_desktop takes an optional `desktop` (toolCall.ts takes it off before the
 * tool's own schema): the seed's parameters stay as they are, with this one extension.
 */
const DESKTOP_ARG: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description:
    'Optional: the desktop (id or name from list_desktops) this one call works on; default: the session’s desktop (select_desktop).',
};

function inputSchemaOf(tool: BridgeTool): JsonSchema {
  const schema = jsonSchema(tool.definition.input, 'input');
  if (tool.name === 'select_desktop') return schema;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return { ...schema, properties: { ...properties, desktop: DESKTOP_ARG } };
}

export function toolEntry(tool: BridgeTool): Tool {
  const def = tool.definition;
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: inputSchemaOf(tool) as Tool['inputSchema'],
    outputSchema: {
      type: 'object',
      anyOf: [jsonSchema(def.result, 'output'), ERROR_ENVELOPE],
    },
    annotations: { title: def.title, ...def.annotations },
  };
}

/** Built once: the schemas never change while the bridge runs. */
export function buildToolList(tools: readonly BridgeTool[]): Tool[] {
  return tools.map(toolEntry);
}
