// How a tool call shows itself to the person, declared in its definition (`preview`): what the
// approval panel says and marks on the desktop before it runs, and what the AI's pointer draws in
// every window of the person while it runs. A preview is one of a few kinds, and the viewer maps
// each kind to its words, its mark and its pointer drawing once (a mapped type over the kinds,
// apps/web store/pendingConfirmations.ts ByKind),
// so a new tool that previews as an existing kind needs nothing in the viewer.
//
// The kinds the pointer draws are the ai_action wire's (aiAction.ts), in the call's own
// coordinates (monitor-relative when `monitor_index` is set; the viewer resolves them):
// - click, scroll, move: a point (crosshair in the panel; the pointer goes there and ripples);
// - drag: from a point to another (an arrow; the pointer travels it);
// - type: text typed into the desktop (shown verbatim with Return and Tab made visible; the
//   pointer's bubble shows it);
// - keys: one key combo by name (verbatim; the bubble).
// The kinds that have no place on the desktop are shown in the panel only and never drawn nor
// sent to the person's other windows:
// - text: text that goes somewhere else (the clipboard), shown verbatim under the tool's words;
// - none: the tool's words only.
import type { AiAction } from '../aiAction.js';

/** A drawn kind, in the call's coordinates, with the monitor they are relative to. */
export type DrawnPreview = AiAction & { monitor_index?: number | undefined };

export type ToolPreview =
  | DrawnPreview
  | {
      kind: 'text';
      /** The panel's title, e.g. "Replace the clipboard". */
      title: string;
      /** The line above the verbatim text, e.g. "Put 12 characters on the clipboard:". */
      fact: string;
      text: string;
    }
  | { kind: 'none'; title: string; facts: readonly string[] };
