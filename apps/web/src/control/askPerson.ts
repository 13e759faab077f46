// Asking the person about one AI call (the approval panel): the question, how long it stays open,
// whether Approve may also grant a standing permission, its withdrawal when the person takes the
// desktop over, and what the AI is told when the answer is not "approved".
import {
  APPROVAL_WINDOW_MS,
  ProtocolError,
  intentOfArgs,
  wantsConfirmation,
  type TypedToolCall,
} from '@overlay-companion/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { Confirmations, SettledReason } from '../confirm/confirmations.js';
import { confirmDetails } from '../confirm/previewDetails.js';
import { WITHDRAWN_AT_TAKE_OVER_MESSAGE, type TakeOverState } from '../takeover/personActivity.js';
import { AskEndedError } from './answers.js';
import type { ToolEnv } from './dispatch.js';
import { monitorsOrNone, waitsForPerson } from './runShown.js';

export interface AskDeps {
  confirmations: Confirmations;
  monitors: ToolEnv['monitors'];
  /** Whether the person has taken the desktop over: a question about input is withdrawn then. */
  takeOver?: StoreApi<TakeOverState>;
}

/**
 * Ask the person about `call`; resolves once they approved, throws (AskEndedError) with what the
 * AI hears otherwise.
 */
export async function askPerson(
  deps: AskDeps,
  call: TypedToolCall,
  signal: AbortSignal,
): Promise<void> {
  const timeoutMs = Math.min(APPROVAL_WINDOW_MS, call.deadline_ms);
  const details = confirmDetails(call, monitorsOrNone(deps.monitors));
  const grantable =
    call.client !== undefined && !wantsConfirmation(call.args)
      ? { tool: call.name, client: call.client, callId: call.id }
      : undefined;
  const asking = withdrawnAtTakeOver(deps.takeOver, call, signal);
  let how: SettledReason;
  try {
    how = await deps.confirmations.askHow(details, {
      timeoutMs,
      signal: asking.signal,
      ...(grantable === undefined ? {} : { grantable }),
      intent: intentOfArgs(call.args),
    });
  } finally {
    asking.release();
  }
  if (asking.signal.aborted) {
    const why: unknown = asking.signal.reason;
    throw why instanceof ProtocolError
      ? new AskEndedError(why.kind, why.message, 'withdrawn')
      : new AskEndedError('cancelled', 'Cancelled.', 'withdrawn');
  }
  if (how !== 'approved') throw notApproved(call.name, how, timeoutMs);
}

/**
 * The signal a question about desktop input is asked under: `signal`, and also aborted when
 * the person takes the desktop over (the panel closes; the AI is told why).
 */
function withdrawnAtTakeOver(
  takeOver: StoreApi<TakeOverState> | undefined,
  call: TypedToolCall,
  signal: AbortSignal,
): { signal: AbortSignal; release: () => void } {
  if (takeOver === undefined || !waitsForPerson(call.name))
    return { signal, release: () => undefined };
  const asking = new AbortController();
  const onAbort = () => asking.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const unsubscribe = takeOver.subscribe((s) => {
    if (s.takenOver) asking.abort(new ProtocolError('cancelled', WITHDRAWN_AT_TAKE_OVER_MESSAGE));
  });
  if (signal.aborted) onAbort();
  else if (takeOver.getState().takenOver)
    asking.abort(new ProtocolError('cancelled', WITHDRAWN_AT_TAKE_OVER_MESSAGE));
  return {
    signal: asking.signal,
    release: () => {
      signal.removeEventListener('abort', onAbort);
      unsubscribe();
    },
  };
}

/** Why a call the person was asked about did not run, as the AI and the audit hear it. */
function notApproved(tool: string, how: SettledReason, timeoutMs: number): AskEndedError {
  switch (how) {
    case 'timeout':
      return new AskEndedError(
        'permission_denied',
        `The person did not answer within ${Math.round(timeoutMs / 1000)} s, so ${tool} did not run. Ask again only if it still matters.`,
        'timeout',
      );
    case 'stopped':
      return new AskEndedError(
        'cancelled',
        `The person pressed Stop while ${tool} waited for their answer; it did not run. Wait for them before acting again.`,
        'stopped',
      );
    case 'withdrawn':
      return new AskEndedError('cancelled', `${tool} was withdrawn before an answer.`, 'withdrawn');
    default:
      return new AskEndedError(
        'permission_denied',
        `The person denied ${tool} in the viewer.`,
        'denied',
      );
  }
}
