// Running one tool call once it is allowed, the way the person must see it: desktop input first
// waits its turn while the person is using the desktop (or has taken over) and says so in its
// result; every input action is announced to the activity layer (the AI's pointer, ripple and
// typed text, the "AI is acting" indicator) while it runs.
import {
  DESKTOP_INPUT_TOOLS,
  needsInputPolicy,
  type Monitor,
  type ToolName,
  type TypedToolCall,
} from '@overlay-companion/protocol';
import { aiActionStarted } from '../activity/aiActivity.js';
import type { PersonActivity } from '../takeover/personActivity.js';
import { confirmDetails, runTool, type AnyViewerResult, type ToolEnv } from './dispatch.js';

const WAITS_FOR_PERSON: ReadonlySet<ToolName> = new Set(DESKTOP_INPUT_TOOLS);

export interface RunOptions {
  env: ToolEnv;
  /** The person's own use of the desktop; undefined: nobody to wait for. */
  person: PersonActivity | undefined;
  /** Epoch ms at which a call still waiting for the person gives up (before its deadline). */
  giveUpAt: number;
}

/** Runs `call`, waiting for the person and showing it as described above. */
export function runWithPerson(
  call: TypedToolCall,
  { env, person, giveUpAt }: RunOptions,
): AnyViewerResult | Promise<AnyViewerResult> {
  if (person === undefined || !WAITS_FOR_PERSON.has(call.name)) return runShown(call, env);
  return person.waitForTurn(env.signal, giveUpAt).then(async (waited) => {
    const result = await runShown(call, env);
    return waited > 0 ? { ...result, waited_for_person_ms: Math.round(waited) } : result;
  });
}

function runShown(call: TypedToolCall, env: ToolEnv): AnyViewerResult | Promise<AnyViewerResult> {
  if (!needsInputPolicy(call.name)) return runTool(call, env);
  const done = aiActionStarted(confirmDetails(call, monitorsOrNone(env.monitors)));
  try {
    const outcome = runTool(call, env);
    if (outcome instanceof Promise) return outcome.finally(done);
    done();
    return outcome;
  } catch (err) {
    done();
    throw err;
  }
}

/** The monitors when the desktop's size is known, else none (showing never fails a call). */
export function monitorsOrNone(monitors: () => Monitor[]): Monitor[] {
  try {
    return monitors();
  } catch {
    return [];
  }
}
