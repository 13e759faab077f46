// The AI's intent: every input tool and request_annotation take it, trimmed and bounded, control
// characters refused with the field named; the wire's tool_call keeps it; the audit detail line
// round-trips it.
import { describe, expect, it } from 'vitest';
import { ToolCallMessage } from '../messages.js';
import { parseToolArgs } from '../toolParsing.js';
import { schemaTable } from '../testing/schemaTable.js';
import { toolDefinitions, toolList } from './index.js';
import { INTENT_NOTE, MAX_INTENT_CHARS, detailWithIntent, intentOfDetail } from './intent.js';
import { INPUT_POLICY_TOOLS, type ToolName } from './names.js';

/** Tools that take `intent`: everything the mode governs, and the teach-mode request. */
const WITH_INTENT: readonly ToolName[] = [...INPUT_POLICY_TOOLS, 'request_annotation'];

describe('intent', () => {
  it('is an optional argument of every input tool and request_annotation, and of no other', () => {
    expect([...INPUT_POLICY_TOOLS].sort()).toEqual(
      [
        'click_at',
        'drag',
        'get_clipboard',
        'mouse_move',
        'press_key',
        'scroll',
        'set_clipboard',
        'type_text',
      ].sort(),
    );
    for (const def of toolList) {
      const shape = (def.input as unknown as { shape?: Record<string, unknown> }).shape ?? {};
      expect('intent' in shape, def.name).toBe(WITH_INTENT.includes(def.name));
    }
    for (const name of INPUT_POLICY_TOOLS) {
      expect(toolDefinitions[name].description, name).toContain(INTENT_NOTE);
    }
    expect(toolDefinitions.request_annotation.description).toContain('`intent`');
  });

  it('leaves every existing call valid without it', () => {
    expect(parseToolArgs('click_at', { x: 1, y: 2 })).toMatchObject({ ok: true });
    const parsed = parseToolArgs('get_clipboard', {});
    expect(parsed).toEqual({ ok: true, value: {} });
  });

  schemaTable(
    'click_at',
    [
      {
        args: { x: 1, y: 2, intent: 'Open the File menu' },
        expect: { intent: 'Open the File menu' },
      },
      {
        args: { x: 1, y: 2, intent: '  Save the report \u00a0' },
        expect: { intent: 'Save the report' },
      },
      { args: { x: 1, y: 2, intent: 'é'.repeat(MAX_INTENT_CHARS) } },
      { args: { x: 1, y: 2, intent: ` ${'a'.repeat(MAX_INTENT_CHARS)} ` } },
      { args: { x: 1, y: 2, intent: '<script>alert(1)</script> — “quoted” 😀' } },
    ],
    [
      { args: { x: 1, y: 2, intent: '' }, error: ['intent:'] },
      { args: { x: 1, y: 2, intent: '   ' }, error: ['intent:'] },
      { args: { x: 1, y: 2, intent: 'a'.repeat(MAX_INTENT_CHARS + 1) }, error: ['intent:', '200'] },
      { args: { x: 1, y: 2, intent: 'two\nlines' }, error: ['intent:', 'U+000A'] },
      { args: { x: 1, y: 2, intent: 'tab\there' }, error: ['intent:', 'U+0009'] },
      { args: { x: 1, y: 2, intent: 'esc\u001b[2J' }, error: ['intent:', 'U+001B'] },
      { args: { x: 1, y: 2, intent: 'c1\u0085' }, error: ['intent:', 'U+0085'] },
      { args: { x: 1, y: 2, intent: 'del\u007f' }, error: ['intent:', 'U+007F'] },
      { args: { x: 1, y: 2, intent: 'safe\u202eexe.txt' }, error: ['intent:', 'U+202E'] },
      { args: { x: 1, y: 2, intent: 42 }, error: ['intent:'] },
    ],
  );

  it('is checked the same way by every tool that takes it', () => {
    const base: Partial<Record<ToolName, Record<string, unknown>>> = {
      click_at: { x: 1, y: 1 },
      type_text: { text: 'hi' },
      press_key: { keys: 'Return' },
      scroll: { x: 1, y: 1, direction: 'down' },
      drag: { from: { x: 1, y: 1 }, to: { x: 2, y: 2 } },
      mouse_move: { x: 1, y: 1 },
      get_clipboard: {},
      set_clipboard: { text: 'x' },
      request_annotation: { prompt: 'Show me Save' },
    };
    for (const name of WITH_INTENT) {
      const args = base[name];
      if (args === undefined) throw new Error(`no base args for ${name}`);
      const good = parseToolArgs(name, { ...args, intent: ' Why not ' });
      expect(good, name).toMatchObject({ ok: true, value: { intent: 'Why not' } });
      const bad = parseToolArgs(name, { ...args, intent: 'a\u0000b' });
      expect(bad.ok, name).toBe(false);
      if (!bad.ok) expect(bad.error, name).toMatch(/intent: .*U\+0000/);
    }
  });

  it('travels to the viewer in the tool_call message, trimmed', () => {
    const parsed = ToolCallMessage.safeParse({
      type: 'tool_call',
      id: 'c1',
      name: 'type_text',
      args: { text: 'hello', intent: '  Fill in the name field ' },
      policy: 'confirm',
      deadline_ms: 5000,
    });
    if (!parsed.success) throw parsed.error;
    expect(parsed.data.args).toMatchObject({ intent: 'Fill in the name field' });
    const refused = ToolCallMessage.safeParse({
      type: 'tool_call',
      id: 'c2',
      name: 'type_text',
      args: { text: 'hello', intent: 'x\ny' },
      policy: 'confirm',
      deadline_ms: 5000,
    });
    expect(refused.success).toBe(false);
  });

  it('is kept on the last line of the audit detail and read back from it', () => {
    expect(detailWithIntent('desktop Main', undefined)).toBe('desktop Main');
    expect(detailWithIntent(null, undefined)).toBeNull();
    expect(detailWithIntent(null, 'Open it')).toBe('intent: Open it');
    const detail = detailWithIntent('desktop Main', 'Open it');
    expect(detail).toBe('desktop Main\nintent: Open it');
    expect(intentOfDetail(detail)).toBe('Open it');
    expect(intentOfDetail('intent: Open it')).toBe('Open it');
    expect(intentOfDetail('desktop intent: x')).toBeUndefined();
    expect(intentOfDetail(null)).toBeUndefined();
  });
});
