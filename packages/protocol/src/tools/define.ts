// The shape of one tool definition and `defineTool`, which fills in the viewer result schema.
// The bridge registers each definition with the MCP SDK; the viewer uses `input` to re-parse
// the args it receives and `viewerResult` to shape what it sends back.
import type { z } from 'zod';
import type { ToolKind, ToolName } from './names.js';

export interface ToolAnnotations {
  /** The tool changes nothing (MCP hint). */
  readOnlyHint: boolean;
  /** The tool may destroy or overwrite something the person has (MCP hint). */
  destructiveHint: boolean;
  /** Calling twice with the same args has no further effect (MCP hint). */
  idempotentHint?: boolean;
  /** Always false: tools act on one known desktop, never the open world. */
  openWorldHint: false;
}

export interface ToolDefinition<
  Name extends ToolName = ToolName,
  Input extends z.ZodObject = z.ZodObject,
  Result extends z.ZodObject = z.ZodObject,
  ViewerResult extends z.ZodObject = z.ZodObject,
> {
  name: Name;
  /** Short human title for tool lists. */
  title: string;
  /** Written for the model: what it does, when to use it, units, what it returns. */
  description: string;
  /** Arguments; strict (unknown fields rejected), defaults applied on parse. */
  input: Input;
  /** MCP structured result (`outputSchema` / `structuredContent`). */
  result: Result;
  /**
   * What the viewer puts in `tool_result.result`. Equal to `result` except for take_screenshot,
   * whose viewer result adds the base64 image that the bridge turns into MCP image content.
   */
  viewerResult: ViewerResult;
  annotations: ToolAnnotations;
  kind: ToolKind;
  /** True when the mode policy (decidePolicy) governs this tool. */
  needsInputPolicy: boolean;
}

type Spec<
  N extends ToolName,
  I extends z.ZodObject,
  R extends z.ZodObject,
  V extends z.ZodObject,
> = Omit<ToolDefinition<N, I, R, V>, 'viewerResult'> & { viewerResult?: V };

export function defineTool<
  const N extends ToolName,
  I extends z.ZodObject,
  R extends z.ZodObject,
  V extends z.ZodObject = R,
>(spec: Spec<N, I, R, V>): ToolDefinition<N, I, R, V> {
  // When no viewer result is given it is the MCP result itself (same schema object).
  return { ...spec, viewerResult: spec.viewerResult ?? (spec.result as unknown as V) };
}
