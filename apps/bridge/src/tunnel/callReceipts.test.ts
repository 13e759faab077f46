// Which tunnel may answer a call's receipt token for the bridge (the real tunnels, gateway,
// desktop and viewer are in e2e/receiptSettled.spec.ts).
import { describe, expect, it } from 'vitest';
import { CallReceiptToken } from '@overlay-companion/protocol';
import { CallReceipts, type ReceiptTunnel } from './callReceipts.js';

const tunnel = (over: Partial<ReceiptTunnel> = {}): ReceiptTunnel => ({
  uuid: 'tunnel-a',
  desktopId: 'desk-1',
  personId: 'alice',
  readOnly: false,
  ...over,
});

function issued(receipts = new CallReceipts()) {
  let delivered = 0;
  const receipt = receipts.forDesktop('desk-1').issue('alice', () => (delivered += 1));
  return { receipts, receipt, delivered: () => delivered };
}

describe('CallReceipts', () => {
  it('tokens are 128 random bits, never a viewer counter, never repeated', () => {
    const receipts = new CallReceipts();
    const tokens = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const { token } = receipts.issue('d', 'p', () => undefined);
      expect(CallReceiptToken.safeParse(token).success).toBe(true);
      expect(token).not.toMatch(/^\d+$/);
      tokens.add(token);
    }
    expect(tokens.size).toBe(1000);
  });

  it("the call's person's tunnel to its desktop answering delivered settles it, once", () => {
    const { receipts, receipt, delivered } = issued();
    const mine = tunnel();
    receipts.asked(receipt.token, mine);
    // True only for the answer that settled it: the tunnel then tells the browser a turn later.
    expect(receipts.answered(receipt.token, mine, 'desktop')).toBe(true);
    expect(receipts.answered(receipt.token, mine, 'desktop')).toBe(false);
    expect(delivered()).toBe(1);
    expect(receipts.size).toBe(0);
  });

  it.each(['link', 'sent'] as const)('`%s` counts as delivered, as the viewer reads it', (o) => {
    const { receipts, receipt, delivered } = issued();
    receipts.asked(receipt.token, tunnel());
    receipts.answered(receipt.token, tunnel(), o);
    expect(delivered()).toBe(1);
  });

  it.each(['lost', 'refused'] as const)('`%s` settles nothing (the viewer answers)', (o) => {
    const { receipts, receipt, delivered } = issued();
    receipts.asked(receipt.token, tunnel());
    expect(receipts.answered(receipt.token, tunnel(), o)).toBe(false);
    expect(delivered()).toBe(0);
    expect(receipts.size).toBe(0);
  });

  it.each([
    ['another person', { personId: 'mallory' }],
    ['another desktop', { desktopId: 'desk-2' }],
    ['a view-only window', { readOnly: true }],
  ])('%s presenting the token settles nothing, and the right tunnel still can', (_what, over) => {
    const { receipts, receipt, delivered } = issued();
    const other = tunnel({ uuid: 'tunnel-b', ...over });
    receipts.asked(receipt.token, other);
    expect(receipts.answered(receipt.token, other, 'desktop')).toBe(false);
    expect(delivered()).toBe(0);
    const mine = tunnel();
    receipts.asked(receipt.token, mine);
    receipts.answered(receipt.token, mine, 'desktop');
    expect(delivered()).toBe(1);
  });

  it('only the first tunnel that asked counts: an answer on another tunnel is ignored', () => {
    const { receipts, receipt, delivered } = issued();
    receipts.asked(receipt.token, tunnel());
    const second = tunnel({ uuid: 'tunnel-b' });
    receipts.asked(receipt.token, second);
    receipts.answered(receipt.token, second, 'desktop');
    expect(delivered()).toBe(0);
    receipts.answered(receipt.token, tunnel(), 'desktop');
    expect(delivered()).toBe(1);
  });

  it('an answer without the question on that tunnel, a guessed token or a released one: nothing', () => {
    const { receipts, receipt, delivered } = issued();
    receipts.answered(receipt.token, tunnel(), 'desktop');
    expect(delivered()).toBe(0);
    const guess = `r${'0'.repeat(32)}`;
    receipts.asked(guess, tunnel());
    receipts.answered(guess, tunnel(), 'desktop');
    receipts.asked('7', tunnel());
    receipts.answered('7', tunnel(), 'desktop');
    expect(delivered()).toBe(0);
    receipt.release();
    receipts.asked(receipt.token, tunnel());
    receipts.answered(receipt.token, tunnel(), 'desktop');
    expect(delivered()).toBe(0);
    expect(receipts.size).toBe(0);
  });
});
