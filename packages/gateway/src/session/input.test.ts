import { describe, expect, it } from 'vitest';
import { InputError, InputHandler, type DesktopInput, type InputPolicy } from './input.js';

/** A recording stand-in for the RFB client (the real one is exercised in the gateway tests). */
function recordingDesktop(): DesktopInput & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    supportsSetDesktopSize: true,
    pointer: (...a) => calls.push(['pointer', ...a]),
    key: (...a) => calls.push(['key', ...a]),
    setDesktopSize: (...a) => calls.push(['setDesktopSize', ...a]),
    setClipboard: (...a) => calls.push(['setClipboard', ...a]),
    confirmDelivery: () => Promise.resolve('server'),
  };
}

const policy = (p: Partial<InputPolicy> = {}): InputPolicy => ({
  readOnly: false,
  disablePaste: false,
  disableDisplayResize: false,
  ...p,
});

const setup = (p?: Partial<InputPolicy>) => {
  const desktop = recordingDesktop();
  const handler = new InputHandler(
    () => desktop,
    policy(p),
    () => ({ width: 800, height: 600 }),
  );
  const send = (opcode: string, ...args: string[]) => handler.handle({ opcode, args });
  return { desktop, send };
};

describe('InputHandler', () => {
  it('forwards mouse (clamped to the screen), keys and size', () => {
    const { desktop, send } = setup();
    send('mouse', '10', '20', '9');
    send('mouse', '-5', '900', '0');
    send('key', '65307', '1');
    send('key', '65307', '0');
    send('size', '1280', '720');
    expect(desktop.calls).toEqual([
      ['pointer', 10, 20, 9],
      ['pointer', 0, 599, 0],
      ['key', 65307, true],
      ['key', 65307, false],
      ['setDesktopSize', 1280, 720],
    ]);
  });

  it('assembles a clipboard stream from base64 blobs as UTF-8', () => {
    const { desktop, send } = setup();
    const bytes = Buffer.from('grüße 👋', 'utf8');
    send('clipboard', '3', 'text/plain');
    // Split inside a multi-byte character: blobs are bytes, decoding happens at the end.
    send('blob', '3', bytes.subarray(0, 4).toString('base64'));
    send('blob', '3', bytes.subarray(4).toString('base64'));
    send('end', '3');
    expect(desktop.calls).toEqual([['setClipboard', 'grüße 👋']]);
  });

  it('answers a blob on an unknown stream with an ack instead of failing', () => {
    const { send } = setup();
    expect(send('blob', '9', 'AAAA').ack).toMatchObject({ stream: 9, status: 0x100 });
  });

  it('ignores everything from a read-only browser, and paste when disabled', () => {
    const ro = setup({ readOnly: true });
    ro.send('mouse', '1', '2', '1');
    ro.send('key', '97', '1');
    ro.send('size', '640', '480');
    ro.send('clipboard', '1', 'text/plain');
    ro.send('blob', '1', 'aGk=');
    ro.send('end', '1');
    expect(ro.desktop.calls).toEqual([]);
    const noPaste = setup({ disablePaste: true, disableDisplayResize: true });
    noPaste.send('clipboard', '1', 'text/plain');
    noPaste.send('blob', '1', 'aGk=');
    noPaste.send('end', '1');
    noPaste.send('size', '640', '480');
    expect(noPaste.desktop.calls).toEqual([]);
  });

  it('ignores unknown opcodes and rejects malformed arguments', () => {
    const { desktop, send } = setup();
    expect(send('touch', '1', '2', '3')).toEqual({});
    expect(() => send('mouse', '1', 'x', '0')).toThrow(InputError);
    expect(() => send('mouse', '1', '2')).toThrow(/argument 3/);
    expect(() => send('key', '97', '2')).toThrow(InputError);
    expect(() => send('size', '0', '10')).toThrow(InputError);
    expect(() => send('blob', '1', 'not base64!')).toThrow(/base64/);
    expect(desktop.calls).toEqual([]);
  });
});
