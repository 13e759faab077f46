// How long the bridge waits for the viewer to answer a relayed call: the tool's own execution
// budget from its protocol definition (budgetMs, stretched by what its args ask for), plus the
// person's approval window when the call carries policy 'confirm'. After the budget the bridge
// fails the call (timeout) and tells the viewer to drop it (tool_cancel).
import {
  APPROVAL_WINDOW_MS,
  toolDefinitions,
  type ToolArgs,
  type ViewerToolName,
} from '@overlay-companion/protocol';

/** Total budget: execution plus the approval window when the person must confirm. */
export function callBudgetMs<N extends ViewerToolName>(
  name: N,
  args: ToolArgs<N>,
  policy: 'allow' | 'confirm',
): number {
  const budget = (toolDefinitions[name].budgetMs as (a: ToolArgs<N>) => number)(args);
  return budget + (policy === 'confirm' ? APPROVAL_WINDOW_MS : 0);
}
