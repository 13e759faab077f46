// Public API of @overlay-companion/protocol: every MCP tool's schemas (tools/), the
// viewer⇄bridge messages, error kinds, the mode policy, key combos and PROTOCOL_VERSION.
// Depends only on zod and has no side effects, so both Node and the browser can import it.
export { PROTOCOL_VERSION } from './version.js';
export * from './common.js';
export * from './keys.js';
export * from './errors.js';
export * from './policy.js';
export * from './permissions.js';
export * from './aiClient.js';
export * from './aiAction.js';
export * from './desktopState.js';
export * from './standingPermission.js';
export * from './standingMessages.js';
export * from './api/index.js';
export * from './tools/index.js';
export * from './toolParsing.js';
export * from './messages.js';
export * from './imageFrame.js';
export * from './overlayFeed.js';
export * from './overlayPlacement.js';
export * from './approvalPreview.js';
export * from './fleet.js';
export * from './privacy.js';
export * from './inputReceipt.js';
export * from './attention.js';
