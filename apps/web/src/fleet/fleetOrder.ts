// The fleet's order and words: tiles sorted by "needs me" (approvals waiting for this person,
// then something wrong, then an AI gone idle, then the rest, by name), and every desktop's
// approvals as one queue, oldest first. Pure, so it is tested without a DOM.
import type { FleetApproval, FleetDesktop } from '@overlay-companion/protocol';

/** An AI that made no call for this long is idle (it may be stuck, or waiting for the person). */
export const IDLE_AI_MS = 60_000;

export type NeedsMe = 'approvals' | 'error' | 'idle' | 'none';

export function needsMe(desktop: FleetDesktop, now: number): NeedsMe {
  if (desktop.approvals.length > 0) return 'approvals';
  if (desktop.error !== null) return 'error';
  const idle = desktop.ai_clients.some(
    (c) => c.last_call_at !== null && now - c.last_call_at > IDLE_AI_MS,
  );
  return idle ? 'idle' : 'none';
}

const RANK: Record<NeedsMe, number> = { approvals: 0, error: 1, idle: 2, none: 3 };

export function byNeedsMe(desktops: readonly FleetDesktop[], now: number): FleetDesktop[] {
  return [...desktops].sort(
    (a, b) =>
      RANK[needsMe(a, now)] - RANK[needsMe(b, now)] ||
      // Among those with approvals, the oldest question first.
      (a.approvals[0]?.asked_at ?? 0) - (b.approvals[0]?.asked_at ?? 0) ||
      a.name.localeCompare(b.name),
  );
}

export interface QueuedApproval extends FleetApproval {
  desktop: { id: string; name: string };
}

/** Every desktop's approvals (the ones this person may answer), oldest first. */
export function approvalQueue(desktops: readonly FleetDesktop[]): QueuedApproval[] {
  return desktops
    .flatMap((d) => d.approvals.map((a) => ({ ...a, desktop: { id: d.id, name: d.name } })))
    .sort((a, b) => a.asked_at - b.asked_at);
}

/** "click_at 4 s ago", "no call yet". */
export function lastDid(client: FleetDesktop['ai_clients'][number], now: number): string {
  if (client.last_call_at === null) return 'no call yet';
  const seconds = Math.max(0, Math.round((now - client.last_call_at) / 1000));
  const ago =
    seconds < 60
      ? `${seconds} s ago`
      : seconds < 3600
        ? `${Math.round(seconds / 60)} min ago`
        : `${Math.round(seconds / 3600)} h ago`;
  return `${client.last_tool ?? 'a call'} ${ago}`;
}

export const MODE_WORDS: Record<FleetDesktop['mode'], string> = {
  passive: 'Passive',
  assist: 'Assist',
  composing: 'Composing',
  autopilot: 'Autopilot',
  custom: 'Custom',
};
