// The fleet's order: approvals first (oldest question first), then errors, then idle AI, then
// by name; every desktop's approvals as one queue, oldest first.
import type { FleetDesktop } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { approvalQueue, byNeedsMe, IDLE_AI_MS, lastDid, needsMe } from './fleetOrder.js';

const NOW = 1_700_000_100_000;

function desktop(id: string, extra: Partial<FleetDesktop> = {}): FleetDesktop {
  return {
    id,
    name: id,
    access: 'owner',
    in_charge: { id: 'per_1', name: 'Ada' },
    you_in_charge: true,
    mode: 'assist',
    control_window: true,
    ai_clients: [],
    approvals: [],
    error: null,
    ...extra,
  };
}

const client = (lastCallAt: number | null) => ({
  client: { key: 'tok:c', name: 'c', token: 't' },
  sessions: 1,
  last_call_at: lastCallAt,
  last_tool: lastCallAt === null ? null : 'click_at',
});

const approval = (id: string, askedAt: number) => ({
  request_id: id,
  title: 'Click',
  asked_at: askedAt,
  deadline_at: askedAt + 30_000,
});

describe('fleet order', () => {
  it('sorts by needs me, then by name', () => {
    const list = [
      desktop('a'),
      desktop('b-idle', { ai_clients: [client(NOW - IDLE_AI_MS - 1)] }),
      desktop('c-error', { error: 'No window' }),
      desktop('d-late', { approvals: [approval('q2', NOW - 1000)] }),
      desktop('e-early', { approvals: [approval('q1', NOW - 5000)] }),
      desktop('f-busy', { ai_clients: [client(NOW - 1000)] }),
    ];
    expect(byNeedsMe(list, NOW).map((d) => d.id)).toEqual([
      'e-early',
      'd-late',
      'c-error',
      'b-idle',
      'a',
      'f-busy',
    ]);
    expect(needsMe(desktop('x', { ai_clients: [client(null)] }), NOW)).toBe('none');
  });

  it('queues every desktop’s approvals together, oldest first, naming the desktop', () => {
    const queue = approvalQueue([
      desktop('one', { approvals: [approval('q3', NOW - 100), approval('q4', NOW - 50)] }),
      desktop('two', { approvals: [approval('q1', NOW - 900)] }),
    ]);
    expect(queue.map((a) => [a.desktop.name, a.request_id])).toEqual([
      ['two', 'q1'],
      ['one', 'q3'],
      ['one', 'q4'],
    ]);
  });

  it('says what a client last did', () => {
    expect(lastDid(client(NOW - 4000), NOW)).toBe('click_at 4 s ago');
    expect(lastDid(client(null), NOW)).toBe('no call yet');
  });
});
