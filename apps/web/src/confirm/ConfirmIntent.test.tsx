// The AI's intent in the approval panel: carried by the bridge's tool_call to the question the
// panel shows, rendered as text (a hostile intent stays escaped), bounded, control characters
// visible, and nothing extra when the AI gave none.
import {
  MAX_INTENT_CHARS,
  intentOfArgs,
  parseBridgeMessage,
  typedToolCall,
} from '@overlay-companion/protocol';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { confirmDetails } from './previewDetails.js';
import { createConfirmationStore } from '../store/pendingConfirmations.js';
import { ConfirmIntent } from './ConfirmIntent.js';
import { Confirmations } from './confirmations.js';
import { intentText } from './describe.js';

const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>';

describe('ConfirmIntent', () => {
  it('renders a hostile intent as text under its label, never as markup', () => {
    const html = renderToStaticMarkup(<ConfirmIntent intent={HOSTILE} />);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;');
    expect(html).toContain('The AI says why:');
    expect(html).toContain('id="confirm-intent"');
  });

  it('shows nothing when the AI gave no intent', () => {
    expect(renderToStaticMarkup(<ConfirmIntent intent={undefined} />)).toBe('');
    expect(renderToStaticMarkup(<ConfirmIntent intent="   " />)).toBe('');
  });
});

describe('intentText', () => {
  it('keeps a plain sentence as it is, trimmed', () => {
    expect(intentText('  Open the File menu ')).toBe('Open the File menu');
    expect(intentText(undefined)).toBeUndefined();
  });

  it('cuts a longer one at the bound (in characters, not UTF-16 units) and marks the cut', () => {
    expect(intentText('😀'.repeat(MAX_INTENT_CHARS))).toBe('😀'.repeat(MAX_INTENT_CHARS));
    expect(intentText('a'.repeat(MAX_INTENT_CHARS + 50))).toBe(`${'a'.repeat(MAX_INTENT_CHARS)}…`);
  });

  it('makes control characters visible, as the typed-text preview does', () => {
    expect(intentText('one\ntwo\tthree\u001b')).toBe('one⏎\ntwo⇥three␛');
  });
});

describe("the tool_call's intent reaches the panel", () => {
  it('goes from the bridge message through the question to the rendered panel', async () => {
    const parsed = parseBridgeMessage(
      JSON.stringify({
        type: 'tool_call',
        id: 'call-1',
        name: 'type_text',
        args: { text: 'hello\n', intent: `  ${HOSTILE}  ` },
        policy: 'confirm',
        deadline_ms: 5_000,
      }),
    );
    if (!parsed.ok) throw new Error(parsed.error);
    if (parsed.message.type !== 'tool_call') throw new Error('not a tool_call');
    const call = typedToolCall(parsed.message);
    const store = createConfirmationStore();
    const confirmations = new Confirmations(store);
    // What the controller does for a call the person must approve (controller.ts).
    const answer = confirmations.ask(confirmDetails(call, []), { intent: intentOfArgs(call.args) });
    const [pending] = store.getState().pending;
    expect(pending?.intent).toBe(HOSTILE);
    const html = renderToStaticMarkup(<ConfirmIntent intent={pending?.intent} />);
    expect(html).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
    confirmations.answer(pending?.id ?? '', false);
    await expect(answer).resolves.toBe(false);
  });

  it('leaves the question without an intent when the call has none', () => {
    const store = createConfirmationStore();
    void new Confirmations(store).ask({ kind: 'move', x: 1, y: 2 }, { intent: intentOfArgs({}) });
    expect(store.getState().pending[0]?.intent).toBeUndefined();
  });
});
