// What the approval panel, the overlay's preview mark and the AI pointer show for a tool call:
// the preview its definition declares (packages/protocol tools/preview.ts), with its points moved
// from the call's monitor into desktop pixels. Nothing here knows a tool by name: a tool without
// a preview is shown by its name and its arguments.
import {
  monitorToDesktop,
  toolDefinitions,
  type Monitor,
  type ToolPreview,
  type TypedToolCall,
} from '@overlay-companion/protocol';
import type { ConfirmDetails } from '../store/pendingConfirmations.js';

/** Longest JSON of arguments shown for a tool without a preview. */
const MAX_ARGS_SHOWN = 2000;

/** What previewDetails needs of a definition (any definition, registered or not). */
export interface PreviewSource {
  name: string;
  preview?: ((args: never) => ToolPreview) | undefined;
}

/** The preview of `definition` for its parsed `args`, in desktop pixels. */
export function previewDetails(
  definition: PreviewSource,
  args: unknown,
  monitors: readonly Monitor[],
): ConfirmDetails {
  const preview = (definition.preview as ((args: unknown) => ToolPreview) | undefined)?.(args);
  if (preview === undefined) {
    return {
      kind: 'other',
      tool: definition.name,
      args: (JSON.stringify(args) ?? '').slice(0, MAX_ARGS_SHOWN),
    };
  }
  if (preview.kind === 'text' || preview.kind === 'none') return preview;
  const { monitor_index: index, ...action } = preview;
  const monitor = index === undefined ? undefined : monitors.find((m) => m.index === index);
  const onDesktop = (p: { x: number; y: number }) => monitorToDesktop({ x: p.x, y: p.y }, monitor);
  switch (action.kind) {
    case 'click':
    case 'scroll':
    case 'move':
      return { ...action, ...onDesktop(action) };
    case 'drag':
      return { ...action, from: onDesktop(action.from), to: onDesktop(action.to) };
    case 'type':
    case 'keys':
      return action;
  }
}

/** What the confirmation panel shows for a call: exactly what will happen, in desktop pixels. */
export function confirmDetails(call: TypedToolCall, monitors: readonly Monitor[]): ConfirmDetails {
  return previewDetails(toolDefinitions[call.name], call.args, monitors);
}
