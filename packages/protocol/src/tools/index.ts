// The tools' public surface: the registry (registry.ts), the names and sets derived from it
// (names.ts), `toolList` in the order models see, unknown-key reporting for loose arguments
// (looseArgs.ts), previews (preview.ts), the text-argument marks (textArgs.ts), and every
// family's schemas.
import { toolDefinitions, type ToolDefinitions } from './registry.js';
import type { ToolName } from './names.js';

export type AnyToolDefinition = ToolDefinitions[ToolName];

/** Every definition, in registry order (the order tools are listed to the model). */
export const toolList: readonly AnyToolDefinition[] = Object.values(toolDefinitions);

export { toolDefinitions, type ToolDefinitions } from './registry.js';
export { defineTool, TOOL_FAMILIES, type PolicyClass, type ToolDefinition } from './define.js';
export * from './names.js';
export * from './looseArgs.js';
export * from './preview.js';
export { unmarkedTextArgs } from './textArgs.js';
export * from './intent.js';
export * from './overlay.js';
export * from './screen.js';
export * from './input.js';
export * from './mode.js';
export * from './clipboard.js';
export * from './events.js';
export * from './teach.js';
export * from './desktops.js';
