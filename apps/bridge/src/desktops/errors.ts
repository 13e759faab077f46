// Why a desktop cannot be opened, in words for the person who tried: no such desktop, the bridge
// lacks guacd or a gateway for its kind, a member's desktop points where it may not. These
// messages name no credential and no path of the bridge's, so they go to the browser as they are
// (other failures are logged and answered with a generic message).
export class DesktopReachError extends Error {
  override name = 'DesktopReachError';
}
