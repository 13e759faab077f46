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

export function toolEntry(tool: BridgeTool): Tool {
  const def = tool.definition;
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: jsonSchema(def.input, 'input') as Tool['inputSchema'],
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
