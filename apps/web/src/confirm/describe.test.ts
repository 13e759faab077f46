// The confirmation wording says exactly what will happen.
import { describe, expect, it } from 'vitest';
import { describeConfirmation, showControlCharacters } from './describe.js';

describe('describeConfirmation', () => {
  it('names the click, the button and the point', () => {
    expect(
      describeConfirmation({ kind: 'click', x: 12, y: 34, button: 'right', clicks: 2 }),
    ).toEqual({
      title: 'Double-click with the right button',
      facts: ['At 12, 34 on the desktop (marked with a crosshair).'],
    });
  });

  it('shows text to type verbatim and counts characters, not UTF-16 units', () => {
    const text = describeConfirmation({ kind: 'type', text: 'hi 😀' });
    expect(text.verbatim).toBe('hi 😀');
    expect(text.facts[0]).toMatch(/^4 characters/);
  });

  it('says when the text presses Return or Tab', () => {
    expect(describeConfirmation({ kind: 'type', text: 'a\r\nb\nc\t' }).facts[1]).toBe(
      'This presses Return 2 times and Tab once.',
    );
    expect(describeConfirmation({ kind: 'type', text: 'plain' }).facts).toHaveLength(1);
  });

  it('says from which mode to which, and who asked', () => {
    expect(
      describeConfirmation({ kind: 'mode', from: 'assist', to: 'autopilot', requestedBy: 'ai' })
        .facts[0],
    ).toBe('The AI asks to go from assist to autopilot.');
    const mine = describeConfirmation({
      kind: 'mode',
      from: 'passive',
      to: 'composing',
      requestedBy: 'person',
    });
    expect(mine.title).toBe('Confirm: switch to composing');
    expect(mine.facts[0]).toMatch(/^You chose composing \(from passive\)/);
  });
});

describe('showControlCharacters', () => {
  it('makes Return, Tab, Escape and other control characters visible', () => {
    expect(showControlCharacters('a\nb\tc\u001bd\u0007e\u007f')).toBe('a⏎\nb⇥c␛d␇e␡');
    expect(showControlCharacters('x\r\ny')).toBe('x⏎\ny');
    expect(showControlCharacters('plain äöü €')).toBe('plain äöü €');
  });

  it('is what the panel shows for typed and clipboard text', () => {
    expect(describeConfirmation({ kind: 'type', text: 'rm -rf /\n' }).verbatim).toBe('rm -rf /⏎\n');
    expect(
      describeConfirmation({
        kind: 'text',
        title: 'Replace the clipboard',
        fact: 'Put:',
        text: '\tx',
      }).verbatim,
    ).toBe('⇥x');
  });
});
