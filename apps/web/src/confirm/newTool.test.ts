// A tool is one definition: a tool that is in no registry and no table of this viewer, defined
// through the protocol's public defineTool and nothing else, is worded in the approval panel,
// marked, drawn by the AI pointer and sent to the person's other windows from its definition's
// preview alone; its text argument must be marked (sensitive here, so the bridge's audit redacts
// it: apps/bridge audit/summarize.test.ts does the same with the same kind of definition).
import {
  AiAction,
  defineTool,
  monitorToDesktop,
  unmarkedTextArgs,
  type Monitor,
} from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toAiAction } from '../activity/aiActionWire.js';
import { describeConfirmation, pointOf } from './describe.js';
import { previewDetails } from './previewDetails.js';

const unlockVault = defineTool({
  name: 'unlock_vault',
  title: 'Unlock vault',
  description: 'Types the passphrase into the vault dialog.',
  input: z.strictObject({ passphrase: z.string().min(1) }),
  result: z.strictObject({ success: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  kind: 'input',
  runsIn: 'viewer',
  policyClass: 'keys',
  sensitiveArgs: ['passphrase'],
  preview: (a) => ({ kind: 'type', text: a.passphrase }),
  summarize: () => 'Unlocked.',
});

const pressOk = defineTool({
  name: 'press_ok',
  title: 'Press OK',
  description: 'Clicks the OK button of a dialog at (x, y).',
  input: z.strictObject({ x: z.int(), y: z.int(), monitor_index: z.int().optional() }),
  result: z.strictObject({ success: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  kind: 'input',
  runsIn: 'viewer',
  policyClass: 'pointer',
  preview: (a) => ({
    kind: 'click',
    x: a.x,
    y: a.y,
    button: 'left',
    clicks: 1,
    monitor_index: a.monitor_index,
  }),
  summarize: () => 'Pressed OK.',
});

const secondMonitor: Monitor = { index: 1, x: 1920, y: 0, width: 1280, height: 1024, scale: 1 };

describe('a new tool, from its definition alone', () => {
  it('marks its text argument, so the audit redacts it', () => {
    expect(unmarkedTextArgs(unlockVault)).toEqual([]);
    expect(unlockVault.sensitiveArgs).toEqual(['passphrase']);
  });

  it('is worded in the approval panel as the kind its preview declares', () => {
    const details = previewDetails(unlockVault, { passphrase: 'correct\thorse' }, []);
    expect(describeConfirmation(details)).toEqual({
      title: 'Type text',
      facts: [
        '13 characters into whatever has the keyboard on the desktop:',
        'This presses Tab once.',
      ],
      verbatim: 'correct⇥horse',
    });
  });

  it('is drawn by the pointer in every window: typed text in the bubble, a click at its point', () => {
    const typed = toAiAction(previewDetails(unlockVault, { passphrase: 'hunter2' }, []));
    expect(AiAction.parse(typed)).toEqual({ kind: 'type', text: 'hunter2' });

    const details = previewDetails(pressOk, { x: 10, y: 20, monitor_index: 1 }, [secondMonitor]);
    const expected = monitorToDesktop({ x: 10, y: 20 }, secondMonitor);
    expect(pointOf(details)).toEqual(expected);
    expect(describeConfirmation(details).title).toBe('Click with the left button');
    expect(AiAction.parse(toAiAction(details))).toEqual({
      kind: 'click',
      ...expected,
      button: 'left',
      clicks: 1,
    });
  });

  it('without a preview, is shown by name and arguments and never drawn', () => {
    const bare = { name: 'no_preview', preview: undefined };
    const details = previewDetails(bare, { a: 1 }, []);
    expect(describeConfirmation(details)).toEqual({
      title: 'Run no_preview',
      facts: ['With these arguments:'],
      verbatim: '{"a":1}',
    });
    expect(toAiAction(details)).toBeUndefined();
  });
});
