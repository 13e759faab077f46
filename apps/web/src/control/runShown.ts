// Running one tool call once it is allowed, the way the person must see it: desktop input first
// waits its turn while the person is using the desktop (or has taken over) and says so in its
// result; input that waited through a take-over runs only if the person says Run at the hand
// back (takeover/heldActions.ts); every input action is announced to the activity layer (the
// AI's pointer, ripple and typed text, the "AI is acting" indicator) while it runs.
import {
  DESKTOP_INPUT_TOOLS,
  needsInputPolicy,
  type Monitor,
  type ToolName,
  type TypedToolCall,
} from '@overlay-companion/protocol';
import { aiActionStarted } from '../activity/aiActivity.js';
import type { HeldActions } from '../takeover/heldActions.js';
import type { PersonActivity } from '../takeover/personActivity.js';
import { confirmDetails } from '../confirm/previewDetails.js';
import { runTool, type AnyViewerResult, type ToolEnv } from './dispatch.js';
import { ShownLater } from './shownLater.js';

const WAITS_FOR_PERSON: ReadonlySet<ToolName> = new Set(DESKTOP_INPUT_TOOLS);

/** Input to the desktop: it waits for the person, and never runs while they have taken over. */
export function waitsForPerson(name: ToolName): boolean {
  return WAITS_FOR_PERSON.has(name);
}

export interface RunOptions {
  env: ToolEnv;
  /** The person's own use of the desktop; undefined: nobody to wait for. */
  person: PersonActivity | undefined;
  /** Where input that waited through a take-over asks Run / Discard; undefined: it runs. */
  held?: HeldActions | undefined;
  /** Epoch ms at which a call still waiting for the person gives up (before its deadline). */
  giveUpAt: number;
  /** The call already waited through a take-over before it got here. */
  tookOver?: boolean;
  /** Waited so far for the person (before it got here), in ms. */
  waitedMs?: number;
  /** Throws when the call may no longer run (Stop or a mode change while it was held). */
  recheck?: () => void;
  /** The AI client's name, for the Run / Discard offer. */
  clientName?: string | undefined;
}

/** Runs `call`, waiting for the person and showing it as described above. */
export function runWithPerson(
  call: TypedToolCall,
  options: RunOptions,
): AnyViewerResult | Promise<AnyViewerResult> {
  const { env, person } = options;
  if (person === undefined || !WAITS_FOR_PERSON.has(call.name)) return runShown(call, env);
  return inputTurn(call, person, options).then(async ({ waited, ranByPerson }) => {
    const withWait = (result: AnyViewerResult): AnyViewerResult =>
      waited > 0 ? { ...result, waited_for_person_ms: Math.round(waited) } : result;
    const { receipt } = env;
    const ran: ToolEnv = {
      ...env,
      // Run at the hand back is the person's answer: the action ran because they confirmed it.
      confirmed: ranByPerson || env.confirmed,
      // What the bridge is told the call answers is the answer given below.
      receipt:
        receipt === undefined || waited <= 0
          ? receipt
          : { token: receipt.token, sent: (result) => receipt.sent(withWait(result)) },
    };
    return withWait(await runShown(call, ran));
  });
}

/**
 * Waits until `call` may act on the desktop: how long it waited in all, and whether the person
 * said Run for it at a hand back.
 */
async function inputTurn(
  call: TypedToolCall,
  person: PersonActivity,
  options: RunOptions,
): Promise<{ waited: number; ranByPerson: boolean }> {
  const { env, held, giveUpAt } = options;
  let waited = options.waitedMs ?? 0;
  let mustConfirm = options.tookOver === true;
  let ranByPerson = false;
  for (;;) {
    const turn = await person.waitForTurn(env.signal, giveUpAt);
    waited += turn.waitedMs;
    mustConfirm ||= turn.tookOver;
    if (!mustConfirm || held === undefined) return { waited, ranByPerson };
    // Approved before or during the take-over: the desktop may look different now, so the
    // person decides again (a Discard or no answer rejects, and nothing runs).
    const offeredAt = Date.now();
    await held.hold({
      tool: call.name,
      details: confirmDetails(call, monitorsOrNone(env.monitors)),
      clientName: options.clientName,
      signal: env.signal,
      giveUpAt,
    });
    waited += Date.now() - offeredAt;
    options.recheck?.();
    ranByPerson = true;
    // Run: one more turn (the person may have touched or taken the desktop again meanwhile);
    // only a new take-over asks again.
    mustConfirm = false;
  }
}

/**
 * Runs `call` and shows it: the input leaves first, and the action (the AI pointer, ripple,
 * indicator, the local cursor, the ai_action to the other windows) is shown just after the
 * desktop confirmed it or the call failed, or SHOW_WITHIN_MS into a longer input (shownLater.ts
 * says why). Shown earlier, its frame and messages were on the call's critical path. A call that
 * throws before it runs is not shown.
 */
function runShown(call: TypedToolCall, env: ToolEnv): AnyViewerResult | Promise<AnyViewerResult> {
  if (!needsInputPolicy(call.name)) return runTool(call, env);
  const shown = new ShownLater();
  let outcome: AnyViewerResult | Promise<AnyViewerResult>;
  try {
    outcome = runTool(call, { ...env, shown });
  } catch (err) {
    shown.drop();
    throw err;
  }
  let done: (() => void) | undefined;
  shown.show(() => {
    done = aiActionStarted(confirmDetails(call, monitorsOrNone(env.monitors)));
  });
  const settled = () => shown.settled(() => done?.());
  if (outcome instanceof Promise) return outcome.finally(settled);
  settled();
  return outcome;
}

/** The monitors when the desktop's size is known, else none (showing never fails a call). */
export function monitorsOrNone(monitors: () => Monitor[]): Monitor[] {
  try {
    return monitors();
  } catch {
    return [];
  }
}
