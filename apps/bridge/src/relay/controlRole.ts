// Which of a desktop's windows controls (runs the AI's calls and asks the approvals) and how that
// role moves: a window of the person in charge that joins while none controls takes it (one per
// site: not while another bridge has it), a person's own window takes it from the headless
// viewer, the oldest window of the person in charge is promoted when the control window leaves or
// the charge moves, a window of that person takes it on request, and in a site the site's lease
// decides (claim, yield). When it moves, what the old window held fails with a reason the AI can
// act on, its questions go (every window is told), and each window involved hears hello in its
// new role. The windows themselves are viewerList.ts's; the hub (viewerHub.ts) calls this.
import { ProtocolError, type BridgeToViewer } from '@overlay-companion/protocol';
import type { CallRelay } from './callRelay.js';
import type { ViewerHubOptions } from './hubWiring.js';
import type { NoViewer } from './noViewer.js';
import type { ViewerList } from './viewerList.js';
import type { ViewerPeer, ViewerRole } from './viewerPeer.js';
import type { SharedWindowState } from './windowsShared.js';

export interface ControlRoleParts {
  windows: ViewerList;
  calls: Pick<CallRelay, 'rejectForViewer'>;
  shared: Pick<SharedWindowState, 'controlLeft'>;
  noViewer: Pick<NoViewer, 'headlessLeft' | 'error'>;
  options: Pick<ViewerHubOptions, 'inCharge' | 'controlElsewhere' | 'logger'>;
  sendHello(peer: ViewerPeer, role: ViewerRole): void;
  /** The approvals listed changed (the control window's questions went with it). */
  approvalsChanged(
    message: Extract<BridgeToViewer, { type: 'approvals_waiting' }> | undefined,
  ): void;
  /** Every window is told the desktop_state again (who controls shows in it). */
  desktopChanged(): void;
}

export class ControlRole {
  constructor(private readonly parts: ControlRoleParts) {}

  private get control(): ViewerPeer | undefined {
    return this.parts.windows.control;
  }

  /** `peer` just joined the windows: whether it takes the control role (its hello follows). */
  joined(peer: ViewerPeer): void {
    const { windows, options } = this.parts;
    // Only a window of the person in charge controls: runs the AI's calls and asks for approval.
    // One per site: not while another bridge has it.
    if (
      windows.controlId === undefined &&
      peer.personId === options.inCharge() &&
      options.controlElsewhere?.() !== true
    )
      windows.controlId = peer.id;
    // A person's own window takes the role from the headless viewer: with someone there to ask,
    // nothing is asked of the MCP client, and the person sees every request.
    if (this.control?.headless === true && !peer.headless && peer.personId === options.inCharge()) {
      // (its hello as control follows in the hub)
      this.move(
        peer,
        () =>
          new ProtocolError(
            'viewer_unavailable',
            'The person opened a viewer window, which took over from the headless viewer before this call ran; call again and the person is asked there.',
          ),
        false,
      );
    }
  }

  /**
   * The charge moved to another person: what the control window held fails (it was asked of
   * the previous person), and control goes to the oldest window of the new person, if any.
   */
  chargeMoved(reason: string): void {
    const inCharge = this.parts.options.inCharge();
    if (this.control?.personId === inCharge) return;
    this.move(
      this.parts.windows.all.find((v) => v.personId === inCharge),
      () =>
        new ProtocolError(
          'cancelled',
          `${reason} Nothing of this call ran. Check list_desktops, then ask the person in charge.`,
        ),
      true,
    );
  }

  /**
   * The site's control window was on another bridge and is gone (its lease expired or was given
   * up): the oldest window here of the person in charge becomes the control window (a person's
   * own before the headless viewer). Returns whether one did.
   */
  claim(): boolean {
    if (this.control !== undefined) return false;
    const { windows, options } = this.parts;
    const inCharge = options.inCharge();
    const mine = windows.all.filter((v) => v.personId === inCharge);
    const next = mine.find((v) => !v.headless) ?? mine[0];
    if (next === undefined) return false;
    windows.controlId = next.id;
    this.parts.sendHello(next, 'control');
    options.logger.info({ viewerId: next.id }, 'site: a window here became the control window');
    this.parts.desktopChanged();
    return true;
  }

  /**
   * Another bridge of the site holds the control window (it came first): the one here becomes a
   * mirror, failing what it held (nothing should reach it while another one controls).
   */
  yield(): void {
    if (this.control === undefined) return;
    this.parts.options.logger.info(
      { viewerId: this.parts.windows.controlId },
      'site: the control window is on another bridge; this one is a mirror',
    );
    this.move(
      undefined,
      () =>
        new ProtocolError(
          'viewer_unavailable',
          "Another of the person's windows, on another bridge of the site, is the control window; call again and it runs there.",
        ),
      false,
    );
    this.parts.desktopChanged();
  }

  /**
   * "Make this the control window": `peer` runs the AI's calls and asks the approvals from now
   * on. What the old control window held fails at once (as when it closes); it becomes a mirror.
   */
  take(peer: ViewerPeer): string | undefined {
    const { windows, options } = this.parts;
    const refused = windows.notInCharge(peer, 'take_control');
    if (refused !== undefined) return refused;
    const previous = this.control;
    if (previous?.id === peer.id) return undefined;
    if (previous === undefined && options.controlElsewhere?.() === true)
      return "take_control: the control window is one of the person's windows on another bridge of the site; close that one, and this one takes over.";
    // hello hands the new control window the bridge's overlay copy (the hub's sendHello).
    this.move(
      peer,
      () =>
        new ProtocolError(
          'viewer_unavailable',
          'The person made another of their windows the control window before this call finished, so it may or may not have happened. Take a screenshot to check, then call again: the new window asks them.',
        ),
      true,
    );
    options.logger.info({ viewerId: peer.id, from: previous?.id }, 'control window moved');
    this.parts.desktopChanged();
    return undefined;
  }

  /**
   * The control window `left` has gone (already taken off the windows): what it held fails at
   * once — the AI should not wait out a timeout for a closed window —, its questions go, and the
   * oldest window of the person in charge, if any, controls.
   */
  left(left: ViewerPeer): void {
    const { windows, options, noViewer } = this.parts;
    windows.controlId = undefined;
    if (left.headless) noViewer.headlessLeft();
    const gone = (): ProtocolError => {
      const none = noViewer.error();
      return new ProtocolError(
        'viewer_unavailable',
        `The viewer disconnected before answering, so the action may or may not have happened. Take a screenshot to check. ${none.message}`,
        none.retryAfterMs,
      );
    };
    this.parts.calls.rejectForViewer(left.id, gone);
    // Its questions went with it: tell the other windows nothing waits any more.
    this.parts.approvalsChanged(this.parts.shared.controlLeft());
    const inCharge = options.inCharge();
    const next = windows.all.find((v) => v.personId === inCharge);
    if (next !== undefined) {
      windows.controlId = next.id;
      this.parts.sendHello(next, 'control');
      options.logger.info({ viewerId: next.id }, 'mirror promoted to control');
    }
  }

  /**
   * Moves the control role from the control window (if any) to `to` (none: no window controls):
   * what the old one held fails with `why`, its questions go (every window is told), it hears
   * hello as a mirror, and `to` hears hello as control (with the bridge's overlays) when `greet`.
   */
  private move(to: ViewerPeer | undefined, why: () => ProtocolError, greet: boolean): void {
    const previous = this.control;
    this.parts.windows.controlId = to?.id;
    if (previous !== undefined && previous.id !== to?.id) {
      this.parts.calls.rejectForViewer(previous.id, why);
      this.parts.approvalsChanged(this.parts.shared.controlLeft());
      this.parts.sendHello(previous, 'mirror');
    }
    if (to !== undefined && greet) this.parts.sendHello(to, 'control');
  }
}
