// Safe parsing of a tool's args and of the viewer's result for a named tool. The bridge uses
// parseToolArgs on MCP input it did not get through the SDK and parseToolResult on every
// tool_result; the viewer uses parseToolArgs if it handles args outside a tool_call message.
import { formatZodIssues } from './errors.js';
import { toolDefinitions, type ToolArgs, type ToolViewerResult } from './tools/index.js';
import { isToolName, type ToolName } from './tools/names.js';

export type ValueResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Validates args for `name` (defaults applied); the error names every bad field. */
export function parseToolArgs<N extends ToolName>(
  name: N,
  args: unknown,
): ValueResult<ToolArgs<N>> {
  if (!isToolName(name)) return { ok: false, error: `unknown tool ${JSON.stringify(name)}` };
  const parsed = toolDefinitions[name].input.safeParse(args ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      error: `invalid arguments for ${name}: ${formatZodIssues(parsed.error, { input: args ?? {} })}`,
    };
  }
  return { ok: true, value: parsed.data as ToolArgs<N> };
}

/** Validates what a viewer returned for `name`; a failure is the viewer's bug (system_error). */
export function parseToolResult<N extends ToolName>(
  name: N,
  result: unknown,
): ValueResult<ToolViewerResult<N>> {
  if (!isToolName(name)) return { ok: false, error: `unknown tool ${JSON.stringify(name)}` };
  const parsed = toolDefinitions[name].viewerResult.safeParse(result);
  if (!parsed.success) {
    return {
      ok: false,
      error: `the viewer returned an invalid ${name} result: ${formatZodIssues(parsed.error, { input: result })}`,
    };
  }
  return { ok: true, value: parsed.data as ToolViewerResult<N> };
}
