// One connected viewer window as the hub sees it (a socket abstracted away, so the relay holds no
// WebSocket code: viewerSocket.ts makes these), and the two roles a window can have.
import type { DesktopAccessLevel } from '@overlay-companion/protocol';

export interface ViewerPeer {
  readonly id: string;
  /** A headless viewer has no person watching: approvals go to the MCP client instead. */
  readonly headless: boolean;
  /** The person signed in at this window, and what they may do on this desktop. */
  readonly personId: string;
  readonly access: DesktopAccessLevel;
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** The first window of the person in charge controls (runs calls, asks); the others mirror. */
export type ViewerRole = 'control' | 'mirror';
