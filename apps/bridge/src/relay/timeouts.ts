// How long the bridge waits for the viewer to answer a relayed call. Each tool gets a default
// for its own work, stretched by what its args ask for (typing speed, drag duration, waits),
// plus the person's approval window when the call carries policy 'confirm'. After the budget
// the bridge fails the call (timeout) and tells the viewer to drop it (tool_cancel).
import {
  APPROVAL_WINDOW_MS,
  oneAtATimeDurationMs,
  type ToolArgs,
  type ToolName,
} from '@overlay-companion/protocol';
/** Base budget for quick viewer-side work (overlays, display info, one input action). */
export const QUICK_CALL_MS = 5_000;
/** Screenshots flatten, crop, scale and encode a whole desktop. */
export const SCREENSHOT_MS = 15_000;
/** Slack on top of a wait the args ask for (timers, encoding, network). */
export const SLACK_MS = 5_000;

function argsOf<N extends ToolName>(_name: N, args: unknown): Partial<ToolArgs<N>> {
  return typeof args === 'object' && args !== null ? args : {};
}

/** Execution budget for `name` with parsed `args`, without the approval window. */
export function executionBudgetMs(name: ToolName, args: unknown): number {
  switch (name) {
    case 'take_screenshot':
      return SCREENSHOT_MS + (argsOf('take_screenshot', args).wait_for_stable_ms ?? 0);
    case 'wait_for_screen':
      return (argsOf('wait_for_screen', args).timeout_ms ?? 5000) + SLACK_MS;
    case 'type_text': {
      const a = argsOf('type_text', args);
      const chars = [...(a.text ?? '')].length;
      const charsPerSecond = ((a.typing_speed_wpm ?? 60) * 5) / 60;
      return (
        Math.ceil((chars / charsPerSecond) * 1000) + (a.action_timing_hint ?? 0) + 2 * SLACK_MS
      );
    }
    case 'press_key':
      return QUICK_CALL_MS + (argsOf('press_key', args).repeat ?? 1) * 100;
    case 'click_at':
      return QUICK_CALL_MS + (argsOf('click_at', args).action_timing_hint ?? 0);
    case 'drag':
      return QUICK_CALL_MS + (argsOf('drag', args).duration_ms ?? 300);
    case 'batch_overlay': {
      const a = argsOf('batch_overlay', args);
      return (
        QUICK_CALL_MS * 2 + (a.one_at_a_time === true ? oneAtATimeDurationMs(a.overlays ?? []) : 0)
      );
    }
    case 'get_clipboard':
    case 'set_clipboard':
      return QUICK_CALL_MS * 2;
    default:
      return QUICK_CALL_MS;
  }
}

/** Total budget: execution plus the approval window when the person must confirm. */
export function callBudgetMs(name: ToolName, args: unknown, policy: 'allow' | 'confirm'): number {
  return executionBudgetMs(name, args) + (policy === 'confirm' ? APPROVAL_WINDOW_MS : 0);
}
