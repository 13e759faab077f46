// Test support: calling tools through the real MCP client and reading results.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function textOf(result: CallToolResult): string {
  return result.content
    .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

export interface ErrorInfo {
  kind: string;
  message: string;
  retry_after_ms?: number;
}

/** The structured error of an isError result (throws when the call succeeded). */
export function errorOf(result: CallToolResult): ErrorInfo {
  if (result.isError !== true) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return (result.structuredContent as { error: ErrorInfo }).error;
}
