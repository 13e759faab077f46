// The shape of one tool definition and `defineTool`. A definition is the only place a tool is
// described: its schemas, the words the model reads, MCP annotations, where it runs (the bridge
// or the person's control viewer), its time budget, which policy class and permission toggle
// govern it, the one-sentence summary text clients without structured content see, which of
// its object arguments are loose (the seed's `filter`, `metadata`, `action_timing_hint`: unknown
// keys are accepted and reported back as ignored), which arguments are the person's text
// (sensitiveArgs, redacted in the audit), and how the person sees a call (preview: the approval
// panel's words and mark, the AI pointer's drawing, the ai_action sent to their other windows).
// The bridge's registry, the tool_call wire message, the viewer's dispatch, the audit's
// redaction, the approval panel, the pointer layer and the README's tool, mode and permission
// tables are all derived from these definitions.
//
// What a new tool needs, and nothing else:
// 1. Its definition here in the family's file (tools/<family>.ts), through defineTool. Every
//    string in its arguments is either a top-level argument named in `sensitiveArgs` (the
//    person's text: typed, pasted, a secret) or built from a schema marked
//    `plainText(schema, why)` (an id, a key name, the AI's own words), however deep it is
//    nested. A tool the mode governs (policyClass other than free) gives a `preview` of one of
//    the kinds in preview.ts. textArgs.test.ts fails otherwise.
// 2. One line in the registry (registry.ts), which decides its place in the model's list.
// 3. Its handler: the viewer's handler table (apps/web/src/control/dispatch.ts) for a viewer
//    tool, the bridge's tools (apps/bridge/src/mcp/tools/) for a bridge tool; the compiler
//    fails until it exists.
// Then `npm run docs:tools` rewrites the README's tables (readmeTables.test.ts fails until then).
import type { z } from 'zod';
import type { PermissionName } from '../permissions.js';
import type { ToolPreview } from './preview.js';

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

/** Tool families, for grouping in docs and tool lists. */
export const TOOL_FAMILIES = [
  'overlay',
  'screen',
  'input',
  'mode',
  'clipboard',
  'events',
  'teach',
  'desktop',
] as const;
export type ToolKind = (typeof TOOL_FAMILIES)[number];

/**
 * Where a call is executed: `viewer` tools are relayed to the person's control viewer (tool_call
 * message); `bridge` tools are answered by the bridge itself and never reach a viewer.
 */
export type RunsIn = 'viewer' | 'bridge';

/**
 * What the mode policy (policy.ts decidePolicy) thinks of a tool:
 * - free: never governed by the mode (overlays, screen reading, display info, events, the mode);
 * - pointer: pointer input on the desktop (click, scroll, drag, move) — composing asks first;
 * - keys: keyboard input on the desktop (typing, key combos) — composing lets it run;
 * - clipboard: reading or writing the desktop's clipboard — composing lets it run.
 * Every class but `free` is "input": passive denies it and assist asks the person.
 */
export type PolicyClass = 'free' | 'pointer' | 'keys' | 'clipboard';

/** Base budget for quick viewer-side work (overlays, display info, one input action). */
export const QUICK_CALL_MS = 5_000;
/** Slack on top of a wait the args ask for (timers, encoding, network). */
export const SLACK_MS = 5_000;

export interface ToolDefinition<
  Name extends string = string,
  Input extends z.ZodType = z.ZodType,
  Result extends z.ZodObject = z.ZodObject,
  ViewerResult extends z.ZodObject = z.ZodObject,
  Runs extends RunsIn = RunsIn,
  Policy extends PolicyClass = PolicyClass,
> {
  name: Name;
  /** Short human title for tool lists. */
  title: string;
  /** Written for the model: what it does, when to use it, units, what it returns. */
  description: string;
  /** Arguments; strict (unknown top-level fields rejected), defaults applied on parse. */
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
  runsIn: Runs;
  policyClass: Policy;
  /** The person's permission toggle this tool needs, if any (permissions.ts). */
  permission?: PermissionName;
  /**
   * Milliseconds the viewer may take to run it once allowed (without the person's approval
   * window, which the relay adds). Only viewer tools are relayed; default QUICK_CALL_MS.
   */
  budgetMs: (args: z.output<Input>) => number;
  /** One sentence for clients that show text only, from the parsed args and the result. */
  summarize: (args: z.output<Input>, result: z.output<Result>) => string;
  /**
   * Loose object arguments: top-level field → the keys we know. Other keys are accepted and
   * reported back in the result as `ignored` (ignoredArgs in looseArgs.ts).
   */
  looseObjects?: Readonly<Record<string, readonly string[]>>;
  /**
   * Top-level arguments that carry what the person (or the AI for them) types or copies: the
   * audit keeps their length, not their content, unless the person chose to keep typed text
   * (the bridge's audit/summarize.ts reads this; textArgs.test.ts fails for a string argument
   * that is neither named here nor a plainText schema).
   */
  sensitiveArgs?: readonly string[];
  /**
   * How the person sees a call, from its parsed arguments (preview.ts): what the approval panel
   * says and marks, and what the AI's pointer draws while it runs. Without one the panel shows
   * the tool's name and its arguments as JSON, and nothing is drawn.
   */
  preview?: (args: z.output<Input>) => ToolPreview;
}

type Spec<
  N extends string,
  I extends z.ZodType,
  R extends z.ZodObject,
  V extends z.ZodObject,
  W extends RunsIn,
  P extends PolicyClass,
> = Omit<ToolDefinition<N, I, R, V, W, P>, 'viewerResult' | 'budgetMs'> & {
  viewerResult?: V;
  budgetMs?: (args: z.output<I>) => number;
};

export function defineTool<
  const N extends string,
  I extends z.ZodType,
  R extends z.ZodObject,
  const W extends RunsIn,
  const P extends PolicyClass,
  V extends z.ZodObject = R,
>(spec: Spec<N, I, R, V, W, P>): ToolDefinition<N, I, R, V, W, P> {
  return {
    ...spec,
    // When no viewer result is given it is the MCP result itself (same schema object).
    viewerResult: spec.viewerResult ?? (spec.result as unknown as V),
    budgetMs: spec.budgetMs ?? (() => QUICK_CALL_MS),
  };
}
