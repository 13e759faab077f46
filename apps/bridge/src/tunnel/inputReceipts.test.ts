// The receipt desk's decisions, with the tunnel's parts as plain functions (the real tunnel,
// gateway, guacd and desktops are in tunnel.stall.test.ts and tunnel.guacdStall.test.ts).
import { describe, expect, it } from 'vitest';
import type { InputReceiptOutcome } from '@overlay-companion/protocol';
import { InputReceiptDesk, MAX_OPEN_RECEIPTS, type InputReceiptDeps } from './inputReceipts.js';

function desk(over: Partial<InputReceiptDeps> = {}) {
  const answers: Array<[string, InputReceiptOutcome]> = [];
  const upstream: string[][] = [];
  const d = new InputReceiptDesk({
    readOnly: false,
    answer: (id, outcome) => answers.push([id, outcome]),
    connected: () => true,
    sendUpstream: (opcode, ...args) => {
      upstream.push([opcode, ...args]);
      return true;
    },
    vouch: () => undefined,
    ...over,
  });
  return { d, answers, upstream };
}

describe('InputReceiptDesk', () => {
  it('asks a server that announced confirmation, and says `desktop` on its confirmation', () => {
    const { d, answers, upstream } = desk();
    d.fromServer([]);
    expect(d.request(['7'])).toBe(true);
    expect(upstream).toEqual([['x-oc-delivery', '1']]);
    expect(answers).toEqual([]);
    expect(d.fromServer(['1', 'server'])).toEqual({ confirmedByServer: true });
    expect(answers).toEqual([['7', 'desktop']]);
  });

  it('falls back to the link evidence when the server could only write it', async () => {
    let vouched: (alive: boolean) => void = () => undefined;
    const { d, answers } = desk({
      vouch: () => new Promise<boolean>((resolve) => (vouched = resolve)),
    });
    d.fromServer([]);
    d.request(['8']);
    d.fromServer(['1', 'written']);
    expect(answers).toEqual([]);
    vouched(true);
    await Promise.resolve();
    expect(answers).toEqual([['8', 'link']]);
  });

  it('without a confirming server: `link` when the desktop shows life, `lost` when it does not, `sent` with no way to know', async () => {
    const alive: boolean[] = [true, false];
    const { d, answers } = desk({ vouch: () => Promise.resolve(alive.shift() ?? true) });
    d.request(['1']);
    d.request(['2']);
    await Promise.resolve();
    await Promise.resolve();
    expect(answers).toEqual([
      ['1', 'link'],
      ['2', 'lost'],
    ]);
    const blind = desk();
    blind.d.request(['3']);
    expect(blind.answers).toEqual([['3', 'sent']]);
  });

  it('never claims delivery for a view-only window or without a connection', () => {
    const viewer = desk({ readOnly: true });
    viewer.d.fromServer([]);
    viewer.d.request(['1']);
    expect(viewer.answers).toEqual([['1', 'refused']]);
    expect(viewer.upstream).toEqual([]);
    const early = desk({ connected: () => false });
    early.d.request(['2']);
    expect(early.answers).toEqual([['2', 'lost']]);
  });

  it('answers `lost` for everything open when the tunnel ends, and nothing twice', async () => {
    let vouched: (alive: boolean) => void = () => undefined;
    const { d, answers } = desk({
      vouch: () => new Promise<boolean>((resolve) => (vouched = resolve)),
    });
    d.request(['1']); // waiting on the link
    d.fromServer([]);
    d.request(['2']); // waiting on the server
    d.end();
    expect(answers.sort()).toEqual([
      ['1', 'lost'],
      ['2', 'lost'],
    ]);
    vouched(true);
    await Promise.resolve();
    d.fromServer(['1', 'server']);
    expect(answers).toHaveLength(2);
  });

  it('refuses malformed requests and ignores answers it did not ask for', () => {
    const { d, answers } = desk();
    for (const bad of [[], ['x'], ['1234567890'], ['1', '2'], ['-1']]) {
      expect(d.request(bad)).toBe(false);
    }
    d.fromServer([]);
    expect(d.fromServer(['99', 'server'])).toEqual({ confirmedByServer: false });
    expect(d.fromServer(['1', 'bogus'])).toEqual({ confirmedByServer: false });
    expect(answers).toEqual([]);
  });

  it(`keeps at most ${MAX_OPEN_RECEIPTS} open: more are answered \`lost\` at once`, () => {
    const { d, answers, upstream } = desk();
    d.fromServer([]);
    for (let i = 1; i <= MAX_OPEN_RECEIPTS + 1; i++) d.request([String(i)]);
    expect(upstream).toHaveLength(MAX_OPEN_RECEIPTS);
    expect(answers).toEqual([[String(MAX_OPEN_RECEIPTS + 1), 'lost']]);
  });
});
