// Clipboard tools: governed by the mode policy like input (the clipboard may hold secrets);
// the viewer moves the text through the Guacamole clipboard stream.
import { defineTool } from '../toolkit.js';
import { relayWithPolicy } from '../relayCall.js';

export const getClipboard = defineTool('get_clipboard', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'get_clipboard', args);
  return {
    structured: result,
    text: result.available
      ? `Clipboard text (${result.text.length} characters):\n${result.text}`
      : 'The remote clipboard holds no text.',
  };
});

export const setClipboard = defineTool('set_clipboard', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'set_clipboard', args);
  return {
    structured: result,
    text: result.ok
      ? `Put ${args.text.length} character(s) on the remote clipboard.`
      : 'The remote clipboard was not changed.',
  };
});

export const clipboardTools = [getClipboard, setClipboard];
