// The one policy (decideCall) asked for what the AI reads without a tool call of its own: the
// background captures of set_screenshot_frequency and screenshot://latest. A session that has
// no desktop yet reads nothing (fail closed).
import { decideCall, type CallDecision, type ToolName } from '@overlay-companion/protocol';
import type { DesktopPlane } from './desktopPlanes.js';

export function readDecision(plane: DesktopPlane | undefined, tool: ToolName): CallDecision {
  if (plane === undefined) {
    return {
      decision: 'deny',
      by: 'permission',
      message: `${tool} is denied: this session has no desktop yet.`,
    };
  }
  return decideCall({
    mode: plane.mode.mode,
    metadata: plane.mode.snapshot.metadata,
    permissions: plane.permissions(),
    tool,
    args: {},
  });
}
