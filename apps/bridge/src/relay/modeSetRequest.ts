// A window's `mode_set`: what the bridge does with the mode a person picked in one of their
// windows (decideModeChange in the protocol is the rule). Lowering applies at once from any of
// the person's windows; a raise is applied only when the person approves it in the approval
// panel of their control window (outside the remote canvas); a headless viewer never raises.
import {
  APPROVAL_WINDOW_MS,
  decideModeChange,
  type BridgeToViewer,
  type Mode,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { ModeSnapshot, ModeState } from '../policy/modeState.js';
import type { CallOptions, ModeApprovalAnswer } from './callRelay.js';

export interface ModeSetContext {
  mode: ModeState;
  /** The window that sent it has no person watching. */
  headless: boolean;
  logger: Logger;
  /** Asks the person at the control window (ViewerHub.requestModeApproval). */
  requestApproval(
    request: {
      from: Mode;
      to: Mode;
      metadata: Record<string, unknown> | undefined;
      requestedBy: 'person';
    },
    options: CallOptions,
  ): Promise<ModeApprovalAnswer>;
}

/** Handles one `mode_set`; returns an error text to send back to the window, if any. */
export function handleModeSet(
  context: ModeSetContext,
  message: Extract<ViewerToBridge, { type: 'mode_set' }>,
): string | undefined {
  const { mode } = context;
  const from = mode.mode;
  const verdict = decideModeChange(
    from,
    message.mode,
    context.headless ? 'headless_viewer' : 'person',
  );
  if (verdict === 'refuse') {
    return `mode_set ignored: a headless viewer cannot raise the mode from ${from} to ${message.mode}; only a person can`;
  }
  if (verdict === 'apply') {
    mode.set(message.mode, message.metadata, 'person');
    return undefined;
  }
  const metadata = message.mode === 'custom' ? (message.metadata ?? {}) : undefined;
  void context
    .requestApproval(
      { from, to: message.mode, metadata, requestedBy: 'person' },
      { timeoutMs: APPROVAL_WINDOW_MS },
    )
    .then(
      ({ approved }) => {
        // Stop (or another choice) while the panel was open wins over this approval.
        if (approved && mode.mode === from) mode.set(message.mode, metadata, 'person');
      },
      (err: unknown) => {
        context.logger.info({ err }, 'mode raise not asked: no control viewer');
      },
    );
  return undefined;
}

/** The mode_changed every window gets (with the custom policy when there is one). */
export function modeChangedMessage(snapshot: ModeSnapshot): BridgeToViewer {
  return snapshot.metadata === undefined
    ? { type: 'mode_changed', mode: snapshot.mode }
    : { type: 'mode_changed', mode: snapshot.mode, metadata: snapshot.metadata };
}
