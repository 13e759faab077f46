// Input tools: pointer and keyboard actions on the desktop. Every one goes through the mode
// policy (relayWithPolicy): denied, confirmed by the person, or allowed.
import { defineTool } from '../toolkit.js';
import { relayWithPolicy } from '../relayCall.js';

function confirmedNote(confirmed: boolean): string {
  return confirmed ? ' (approved by the person)' : '';
}

export const clickAt = defineTool('click_at', async (args, ctx) => {
  const { result, approvedByPerson } = await relayWithPolicy(ctx, 'click_at', args);
  // Approved through the MCP client (headless viewer): the viewer itself did not ask.
  const structured = approvedByPerson ? { ...result, was_confirmed: true } : result;
  const times = args.clicks === 1 ? 'Clicked' : `Clicked ${args.clicks}x`;
  return {
    structured,
    text: structured.success
      ? `${times} ${args.button} at ${args.x},${args.y}${confirmedNote(structured.was_confirmed)}.`
      : `The click at ${args.x},${args.y} was not delivered.`,
  };
});

export const typeText = defineTool('type_text', async (args, ctx) => {
  const { result, approvedByPerson } = await relayWithPolicy(ctx, 'type_text', args);
  return {
    structured: result,
    text: `Typed ${result.typed_length} of ${[...args.text].length} character(s)${confirmedNote(approvedByPerson)}.`,
  };
});

export const pressKey = defineTool('press_key', async (args, ctx) => {
  const { result, approvedByPerson } = await relayWithPolicy(ctx, 'press_key', args);
  return {
    structured: result,
    text: result.success
      ? `Pressed ${args.keys}${args.repeat > 1 ? ` ${args.repeat} times` : ''}${confirmedNote(approvedByPerson)}.`
      : `${args.keys} was not delivered.`,
  };
});

export const scroll = defineTool('scroll', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'scroll', args);
  return {
    structured: result,
    text: result.success
      ? `Scrolled ${args.direction} ${args.amount} step(s) at ${args.x},${args.y}.`
      : 'The scroll was not delivered.',
  };
});

export const drag = defineTool('drag', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'drag', args);
  return {
    structured: result,
    text: result.success
      ? `Dragged from ${args.from.x},${args.from.y} to ${args.to.x},${args.to.y}.`
      : 'The drag was not delivered.',
  };
});

export const mouseMove = defineTool('mouse_move', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'mouse_move', args);
  return {
    structured: result,
    text: result.success
      ? `Moved the pointer to ${args.x},${args.y}.`
      : 'The move was not delivered.',
  };
});

export const inputTools = [clickAt, typeText, pressKey, scroll, drag, mouseMove];
