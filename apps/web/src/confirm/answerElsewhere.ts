// Answering, in a mirror window, an approval the control window asks (approval_answer): which
// listed request is at the front and since when, and whether a press on Approve or Deny counts.
// The rules are the control window's panel's (ConfirmDialog.tsx): only a real (trusted) click or
// key press answers, and Approve is armed only a moment after the request came to the front, so
// a click already on its way (or a double-click) cannot approve the next one.
import type { BridgeToViewer } from '@overlay-companion/protocol';
import type { WaitingElsewhere } from '../store/control.js';
import { APPROVE_ARM_MS } from './ConfirmDialog.js';

type Listed = Extract<BridgeToViewer, { type: 'approvals_waiting' }>['requests'][number];

/**
 * The list as this window keeps it: each with when it arrived (for the countdown) and when the
 * front request came to the front (kept while the same request stays in front).
 */
export function waitingElsewhere(
  before: readonly WaitingElsewhere[],
  requests: readonly Listed[],
  now: number,
): WaitingElsewhere[] {
  const front = before[0];
  return requests.map((r, index) => {
    const sameFront =
      index === 0 &&
      front !== undefined &&
      r.request_id !== undefined &&
      front.request_id === r.request_id;
    return { ...r, receivedAt: now, frontAt: sameFront ? front.frontAt : now };
  });
}

/** Whether a press answers: trusted, and for Approve only once armed. */
export function pressAnswers(
  press: { isTrusted: boolean },
  approved: boolean,
  frontAt: number,
  now: number,
): boolean {
  if (!press.isTrusted) return false;
  return !approved || now - frontAt >= APPROVE_ARM_MS;
}
