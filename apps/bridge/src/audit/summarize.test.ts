// Audit summaries: typed text and clipboard contents redacted unless the person keeps them,
// bounded length, and tool names from the AI never reach Object.prototype.
import { defineTool, toolDefinitions } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_SUMMARY_CHARS, summarizeArgs } from './summarize.js';

describe('summarizeArgs', () => {
  it('redacts what was typed or put on the clipboard, keeping its length', () => {
    expect(
      summarizeArgs('type_text', { text: 'hunter2 secret', typing_speed_wpm: 60 }, false),
    ).toBe('{"text":"[redacted: 14 characters]","typing_speed_wpm":60}');
    expect(summarizeArgs('set_clipboard', { text: 'pässwörd' }, false)).toBe(
      '{"text":"[redacted: 8 characters]"}',
    );
  });

  it("leaves the AI's intent out once it is on the detail line, never redacting it", () => {
    const args = { text: 'hunter2', intent: 'Log in as asked' };
    expect(summarizeArgs('type_text', args, false, true)).toBe(
      '{"text":"[redacted: 7 characters]"}',
    );
    expect(summarizeArgs('type_text', args, false)).toBe(
      '{"text":"[redacted: 7 characters]","intent":"Log in as asked"}',
    );
    expect(summarizeArgs('click_at', { x: 1, y: 2, intent: 'Open it' }, false, true)).toBe(
      '{"x":1,"y":2}',
    );
  });

  it('redacts a sensitive argument sent as something other than a string', () => {
    // The call is refused (text must be a string), but the audit still records what was sent.
    expect(summarizeArgs('type_text', { text: ['hunter2'], typing_speed_wpm: 60 }, false)).toBe(
      '{"text":"[redacted]","typing_speed_wpm":60}',
    );
    expect(summarizeArgs('set_clipboard', { text: { value: 'pässwörd' } }, false)).toBe(
      '{"text":"[redacted]"}',
    );
  });

  it('keeps the text when the person chose to', () => {
    expect(summarizeArgs('type_text', { text: 'hello' }, true)).toBe('{"text":"hello"}');
  });

  it('summarizes other tools as they are, cut to a bounded length', () => {
    expect(summarizeArgs('click_at', { x: 1, y: 2 }, false)).toBe('{"x":1,"y":2}');
    const long = summarizeArgs(
      'batch_overlay',
      { overlays: new Array(5000).fill({ x: 1 }) },
      false,
    );
    expect(long.length).toBeLessThan(MAX_SUMMARY_CHARS + 50);
    expect(long).toMatch(/more characters\]$/);
  });

  it('treats names that exist on Object.prototype as ordinary unknown tools', () => {
    for (const tool of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
      expect(summarizeArgs(tool, { a: 'hunter2' }, false)).toBe('{"a":"[redacted]"}');
      expect(summarizeArgs(tool, { a: 'hunter2' }, true)).toBe('{"a":"hunter2"}');
    }
  });

  it('redacts what the tool has no place for: a misspelt argument, an unknown tool, a loose key', () => {
    // The AI can put the person's text anywhere in a call that will be refused; only the
    // definition says what an argument carries, so what it does not name is not kept.
    expect(summarizeArgs('type_text', { txt: 'hunter2', text: 'ab' }, false)).toBe(
      '{"txt":"[redacted: not an argument of this tool]","text":"[redacted: 2 characters]"}',
    );
    expect(summarizeArgs('no_such_tool', { password: 'hunter2', n: 3 }, false)).toBe(
      '{"password":"[redacted]","n":"[redacted]"}',
    );
    const loose = Object.entries(toolDefinitions).find(([, d]) => d.looseObjects !== undefined);
    expect(loose).toBeDefined();
    const [name, definition] = loose!;
    const [field, keys] = Object.entries(definition.looseObjects!)[0]!;
    const summary = JSON.parse(
      summarizeArgs(name, { [field]: { [keys[0]!]: 1, secret: 'hunter2' } }, false),
    ) as Record<string, Record<string, unknown>>;
    expect(summary[field]).toEqual({
      [keys[0]!]: 1,
      secret: '[redacted: not an argument of this tool]',
    });
    // Kept when the person chose to keep typed text.
    expect(summarizeArgs('type_text', { txt: 'hunter2' }, true)).toBe('{"txt":"hunter2"}');
  });

  it('redacts a new tool that marks its text, with nothing but its definition written', () => {
    // A tool that is in no registry and no list here: its definition is all the audit reads.
    const unlockVault = defineTool({
      name: 'unlock_vault',
      title: 'Unlock vault',
      description: 'Types the passphrase into the vault dialog.',
      input: z.strictObject({ passphrase: z.string(), vault: z.string() }),
      result: z.strictObject({ success: z.boolean() }),
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      kind: 'input',
      runsIn: 'viewer',
      policyClass: 'keys',
      sensitiveArgs: ['passphrase'],
      summarize: () => 'Unlocked.',
    });
    const args = { passphrase: 'correct horse', vault: 'Work' };
    expect(summarizeArgs(unlockVault, args, false)).toBe(
      '{"passphrase":"[redacted: 13 characters]","vault":"Work"}',
    );
    expect(summarizeArgs(unlockVault, args, true)).toBe(JSON.stringify(args));
  });
});
