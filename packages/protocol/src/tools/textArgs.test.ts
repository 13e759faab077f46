// Every string argument of every tool is marked: the person's text (sensitiveArgs, so the audit
// never keeps it unless the person chose to) or a schema that says why it is not (plainText). A
// new tool with an unmarked free-text argument fails here — shown below with a fake tool defined
// through the public defineTool and nothing else. Tools the mode governs say how the person sees
// them (preview), so an approval never falls back to raw JSON.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define.js';
import { toolDefinitions } from './registry.js';
import { plainText, stringArgs, unmarkedTextArgs } from './textArgs.js';

const tools = Object.values(toolDefinitions);

/** A tool in no registry, carrying text: only its definition is written. */
function fakeTool(sensitiveArgs?: readonly string[]) {
  return defineTool({
    name: 'unlock_vault',
    title: 'Unlock vault',
    description: 'Types the passphrase into the vault dialog.',
    input: z.strictObject({
      passphrase: z.string().min(1),
      vault: plainText(z.string(), "the vault's name, as the AI read it on screen"),
      strength: z.enum(['weak', 'strong']).optional(),
    }),
    result: z.strictObject({ success: z.boolean() }),
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    kind: 'input',
    runsIn: 'viewer',
    policyClass: 'keys',
    ...(sensitiveArgs === undefined ? {} : { sensitiveArgs }),
    summarize: () => 'Unlocked.',
  });
}

describe('text arguments', () => {
  it('finds the string arguments, enums aside (so the checks below have something to check)', () => {
    expect(stringArgs(toolDefinitions.type_text)).toContain('text');
    expect(stringArgs(toolDefinitions.set_clipboard)).toContain('text');
    expect(stringArgs(toolDefinitions.press_key)).toContain('keys');
    expect(stringArgs(fakeTool())).toEqual(['passphrase', 'vault']);
  });

  it.each(tools.map((d) => [d.name, d] as const))(
    '%s marks every string argument: sensitive, or plain text with a reason',
    (_name, definition) => {
      expect(unmarkedTextArgs(definition)).toEqual([]);
      // And what is marked sensitive is one of its string arguments.
      for (const arg of definition.sensitiveArgs ?? [])
        expect(stringArgs(definition)).toContain(arg);
    },
  );

  it('keeps typed and pasted text out of the audit', () => {
    expect(toolDefinitions.type_text.sensitiveArgs).toEqual(['text']);
    expect(toolDefinitions.set_clipboard.sensitiveArgs).toEqual(['text']);
  });

  it('fails a new tool that carries free text unmarked, and passes it once marked', () => {
    expect(unmarkedTextArgs(fakeTool())).toEqual(['passphrase']);
    expect(unmarkedTextArgs(fakeTool(['passphrase']))).toEqual([]);
  });

  it('finds text nested in objects, arrays and unions, which only plainText can mark', () => {
    const nested = z.strictObject({
      items: z.array(z.strictObject({ note: z.string(), id: plainText(z.string(), 'an id') })),
      hint: z.union([z.number(), z.strictObject({ words: z.string().optional() })]).optional(),
    });
    expect(unmarkedTextArgs({ input: nested })).toEqual(['items[].note', 'hint.words']);
    // The audit redacts whole top-level strings only: naming an object sensitive is not enough.
    expect(unmarkedTextArgs({ input: nested, sensitiveArgs: ['items', 'hint'] })).toEqual([
      'items[].note',
      'hint.words',
    ]);
    // Free-form values may hold any text.
    const loose = z.strictObject({ extra: z.record(z.string(), z.unknown()).optional() });
    expect(unmarkedTextArgs({ input: loose })).toEqual(['extra[]']);
  });
});

describe('previews', () => {
  it.each(tools.filter((d) => d.policyClass !== 'free').map((d) => [d.name, d] as const))(
    '%s, which the mode governs, says how the person sees it',
    (_name, definition) => {
      expect(definition.preview).toBeTypeOf('function');
    },
  );
});
