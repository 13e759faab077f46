// Text that arrives as text is typed on the desktop once per piece, whatever order the browser
// reports it in, and as the keysym X defines for each character.
import { afterEach, describe, expect, it } from 'vitest';
import type Guacamole from 'guacamole-common-js';
import type { DesktopStateMessage } from '@overlay-companion/protocol';
import { desktopStateStore } from '../store/desktopState.js';
import { viewerPrefsStore } from '../store/viewerPrefs.js';
import { setActiveClient } from './activeClient.js';
import { keysymsOf, personTyped, typeOn, typedText, type TextEventFacts } from './typedText.js';

/** Everything a sequence of sink events types, in order. */
function typedBy(events: TextEventFacts[]): string {
  return events.map((event) => typedText(event) ?? '').join('');
}

const input = (inputType: string, data: string | null, isComposing = false): TextEventFacts => ({
  type: 'input',
  inputType,
  data,
  isComposing,
});

describe('typedText', () => {
  it('types insertText (a phone keyboard, an emoji picker, page.keyboard.insertText)', () => {
    expect(typedBy([input('insertText', 'äöü€')])).toBe('äöü€');
  });

  it('types a composition once, at its end, as Chrome reports it (input while composing, then compositionend)', () => {
    expect(
      typedBy([
        input('insertCompositionText', 'に', true),
        input('insertCompositionText', '日本', true),
        { type: 'compositionend', data: '日本' },
      ]),
    ).toBe('日本');
  });

  it('types a composition once as Firefox reports it (compositionend, then an input no longer composing)', () => {
    expect(
      typedBy([
        input('insertCompositionText', 'ê', true),
        { type: 'compositionend', data: 'ê' },
        input('insertCompositionText', 'ê', false),
      ]),
    ).toBe('ê');
  });

  it('types a composition once as Safari reports it (insertFromComposition)', () => {
    expect(
      typedBy([
        input('insertCompositionText', '´', true),
        input('deleteCompositionText', null, true),
        input('insertFromComposition', 'é', true),
        { type: 'compositionend', data: 'é' },
      ]),
    ).toBe('é');
  });

  it('keeps typing compositions after plain insertText and the other way round', () => {
    expect(
      typedBy([
        input('insertText', 'a'),
        input('insertCompositionText', '日本', true),
        { type: 'compositionend', data: '日本' },
        input('insertText', 'b'),
      ]),
    ).toBe('a日本b');
  });

  it('types nothing for a cancelled composition or for the echo of keys the desktop did not take', () => {
    expect(typedText({ type: 'compositionend', data: '' })).toBeNull();
    expect(typedText(input('insertLineBreak', null))).toBeNull();
    expect(typedText(input('deleteContentBackward', null))).toBeNull();
    expect(typedText(input('insertFromPaste', 'secret'))).toBeNull();
    expect(typedText(input('insertText', ''))).toBeNull();
  });
});

describe('keysymsOf', () => {
  it('gives Latin-1 its own keysym and everything else the X Unicode keysym', () => {
    expect(keysymsOf('aä€日')).toEqual([0x61, 0xe4, 0x010020ac, 0x010065e5]);
  });

  it('makes one key of a character outside the BMP, not two halves', () => {
    expect(keysymsOf('😀')).toEqual([0x0101f600]);
  });

  it('makes line breaks Return (\\r\\n once) and a tab Tab, and drops other control characters', () => {
    expect(keysymsOf('a\nb\r\nc\rd\te')).toEqual([
      0x61, 0xff0d, 0x62, 0xff0d, 0x63, 0xff0d, 0x64, 0xff09, 0x65,
    ]);
    expect(keysymsOf('\u0000\u0008\u001b\u007f\u0085x')).toEqual([0x78]);
  });
});

describe('typeOn', () => {
  it('presses and releases each character once, in order', () => {
    const sent: [number, number][] = [];
    const client = {
      sendKeyEvent: (pressed: 0 | 1, keysym: number) => sent.push([pressed, keysym]),
    };
    expect(typeOn(client, 'ü日')).toBe(2);
    expect(sent).toEqual([
      [1, 0xfc],
      [0, 0xfc],
      [1, 0x010065e5],
      [0, 0x010065e5],
    ]);
  });
});

/** A Guacamole client cut down to the key events it would put on the wire (a protocol edge). */
function recordingClient(): { client: Guacamole.Client; sent: [number, number][] } {
  const sent: [number, number][] = [];
  const client = { sendKeyEvent: (pressed: 0 | 1, keysym: number) => sent.push([pressed, keysym]) };
  return { client: client as unknown as Guacamole.Client, sent };
}

function grant(access: DesktopStateMessage['you']['access']): void {
  desktopStateStore.getState().desktopStateReceived({
    type: 'desktop_state',
    desktop: { id: 'dsk_1', name: 'Studio' },
    in_charge: { id: 'p_bob', name: 'Bob' },
    watchers: [],
    more_watchers: 0,
    you: { access, in_charge: false, may_take_charge: false, may_hand_over_to: [] },
  });
}

describe('personTyped', () => {
  afterEach(() => {
    setActiveClient(null);
    desktopStateStore.setState({ people: null });
    viewerPrefsStore.getState().viewOnlyToggled(false);
  });

  it('sends the text to the connected desktop for a person who may type', () => {
    const { client, sent } = recordingClient();
    setActiveClient(client);
    grant('control');
    expect(personTyped('日')).toBe(true);
    expect(sent).toEqual([
      [1, 0x010065e5],
      [0, 0x010065e5],
    ]);
  });

  it('sends nothing for a view grant, with View only chosen, or without a client', () => {
    const { client, sent } = recordingClient();
    expect(personTyped('ä')).toBe(false);
    setActiveClient(client);
    grant('view');
    expect(personTyped('ä')).toBe(false);
    grant('control');
    viewerPrefsStore.getState().viewOnlyToggled(true);
    expect(personTyped('ä')).toBe(false);
    expect(sent).toEqual([]);
  });
});
