// The fleet feed (/ws/fleet): a signed-in person's desktops at a glance — per desktop its name,
// who is in charge, its mode, its AI clients and what each last did, the approvals waiting for
// this person (only when they are in charge: the questions are theirs) and what is wrong — and
// what the fleet page may ask: Stop one desktop, Stop all, answer an approval. The bridge checks
// every request against the person's access (never the page's word) and sends the state again
// whenever it changes. The socket opens with a single-use `fleet` ticket (POST /api/tickets).
import { z } from 'zod';
import { AiClientRef } from './aiClient.js';
import { Id, Mode } from './common.js';
import { formatZodIssues } from './errors.js';
import { DesktopAccessLevel, PersonRef } from './desktopState.js';
import { ApprovalPreview } from './approvalPreview.js';
import { Intent } from './tools/intent.js';

export const FLEET_SOCKET_PATH = '/ws/fleet';

/** Most desktops one fleet_state lists (far above what one person supervises). */
export const MAX_FLEET_DESKTOPS = 200;
/** Most approvals listed per desktop (the control window lists at most 20). */
export const MAX_FLEET_APPROVALS = 20;
/** Most AI clients listed per desktop. */
export const MAX_FLEET_AI_CLIENTS = 16;

const Title = z.string().min(1).max(200);

export const FleetApproval = z.strictObject({
  /** The control window's id for the question; absent: answered only in that window. */
  request_id: Id.optional(),
  title: Title.describe('What the AI asks, e.g. "Click with the left button".'),
  /** When the bridge heard of it (epoch ms): queues are shown together, oldest first. */
  asked_at: z.int().min(0),
  /** When it is denied unanswered (epoch ms, the bridge's clock). */
  deadline_at: z.int().min(0),
  /** The AI's own reason, if it gave one. */
  intent: Intent,
  /** The desktop's pixels around the point the action targets (the control window's). */
  preview: ApprovalPreview.optional(),
});
export type FleetApproval = z.infer<typeof FleetApproval>;

export const FleetAiClient = z.strictObject({
  client: AiClientRef,
  sessions: z.int().min(1).max(1000),
  /** Epoch ms of its latest tool call, null before the first. */
  last_call_at: z.int().min(0).nullable(),
  /** The tool of that call (e.g. click_at), null before the first. */
  last_tool: z.string().min(1).max(64).nullable(),
});
export type FleetAiClient = z.infer<typeof FleetAiClient>;

export const FleetDesktop = z.strictObject({
  id: Id,
  name: z.string().min(1).max(200),
  /** What this person may do here (owner, admin, control, view). */
  access: DesktopAccessLevel,
  in_charge: PersonRef,
  /** Whether this person is in charge (only then are approvals listed and answerable). */
  you_in_charge: z.boolean(),
  mode: Mode,
  /** Whether a window runs the AI's calls here (without one, every AI input is refused). */
  control_window: z.boolean(),
  ai_clients: z.array(FleetAiClient).max(MAX_FLEET_AI_CLIENTS),
  /** Oldest first; empty unless `you_in_charge`. */
  approvals: z.array(FleetApproval).max(MAX_FLEET_APPROVALS),
  /** What is wrong, said for a person (null: nothing). */
  error: z.string().min(1).max(300).nullable(),
});
export type FleetDesktop = z.infer<typeof FleetDesktop>;

/** Bridge → page: the whole fleet, after connecting and whenever something in it changes. */
export const FleetStateMessage = z.strictObject({
  type: z.literal('fleet_state'),
  desktops: z.array(FleetDesktop).max(MAX_FLEET_DESKTOPS),
});
export type FleetStateMessage = z.infer<typeof FleetStateMessage>;

/** Bridge → page: what a request did not do, and why. */
export const FleetErrorMessage = z.strictObject({
  type: z.literal('fleet_error'),
  message: z.string().min(1).max(500),
});

/** Bridge → page: the desktops a Stop or Stop all stopped. */
export const FleetStoppedMessage = z.strictObject({
  type: z.literal('fleet_stopped'),
  desktop_ids: z.array(Id).max(MAX_FLEET_DESKTOPS),
});

export const BridgeToFleet = z.discriminatedUnion('type', [
  FleetStateMessage,
  FleetErrorMessage,
  FleetStoppedMessage,
]);
export type BridgeToFleet = z.infer<typeof BridgeToFleet>;

/** Page → bridge: Stop this desktop's AI (as Stop in its viewer). */
export const FleetStopMessage = z.strictObject({
  type: z.literal('fleet_stop'),
  desktop_id: Id,
});

/** Page → bridge: Stop every desktop this person may stop. */
export const FleetStopAllMessage = z.strictObject({ type: z.literal('fleet_stop_all') });

/**
 * Page → bridge: answer an approval of `desktop_id` (only the person in charge may; relayed to
 * that desktop's control window exactly like approval_answer from another window).
 */
export const FleetAnswerMessage = z.strictObject({
  type: z.literal('fleet_answer'),
  desktop_id: Id,
  request_id: Id,
  approved: z.boolean(),
});

export const FleetToBridge = z.discriminatedUnion('type', [
  FleetStopMessage,
  FleetStopAllMessage,
  FleetAnswerMessage,
]);
export type FleetToBridge = z.infer<typeof FleetToBridge>;

/** Most characters one fleet frame from a page may have. */
export const MAX_FLEET_REQUEST_CHARS = 1024;

type Parsed<T> = { ok: true; message: T } | { ok: false; error: string };

function parseWith<T>(schema: z.ZodType<T>, text: string, max: number): Parsed<T> {
  if (text.length > max) return { ok: false, error: `fleet message longer than ${max} characters` };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: 'fleet message is not JSON' };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    return {
      ok: false,
      error: `invalid fleet message: ${formatZodIssues(parsed.error, { input: raw })}`.slice(
        0,
        500,
      ),
    };
  return { ok: true, message: parsed.data };
}

/** A page's frame, parsed where it arrives (the bridge). */
export function parseFleetRequest(text: string): Parsed<FleetToBridge> {
  return parseWith(FleetToBridge, text, MAX_FLEET_REQUEST_CHARS);
}

/** A bridge frame, parsed where it arrives (the page). */
export function parseFleetMessage(text: string): Parsed<BridgeToFleet> {
  return parseWith(BridgeToFleet, text, 4 * 1024 * 1024);
}
