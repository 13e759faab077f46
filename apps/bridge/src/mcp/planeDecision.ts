// The one policy (decideCall) asked on one desktop's plane as it is now — its mode and the
// toggles of the person in charge: for every tool call (before relaying, and again after the MCP
// client answered an approval), and for what the AI reads without a call of its own (the
// background captures of set_screenshot_frequency, screenshot://latest). A session that has no
// desktop yet reads nothing (fail closed).
import { decideCall, type CallDecision, type ToolName } from '@overlay-companion/protocol';
import type { DesktopPlane } from './desktopPlanes.js';

export function decideOnPlane(plane: DesktopPlane, tool: string, args: unknown): CallDecision {
  return decideCall({
    mode: plane.mode.mode,
    metadata: plane.mode.snapshot.metadata,
    permissions: plane.permissions(),
    tool,
    args,
  });
}

export function readDecision(plane: DesktopPlane | undefined, tool: ToolName): CallDecision {
  if (plane === undefined) {
    return {
      decision: 'deny',
      by: 'permission',
      message: `${tool} is denied: this session has no desktop yet.`,
    };
  }
  return decideOnPlane(plane, tool, {});
}
