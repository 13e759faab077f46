import { describe, expect, it } from 'vitest';
import { aiClientsMessage } from './aiClients.js';

const session = (
  tokenId: string,
  name: string | null,
  connectedAt: number,
  lastCallAt: number | null,
) => ({
  principal: {
    personId: 'p1',
    personName: 'alice',
    tokenId,
    tokenName: `token ${tokenId}`,
    desktopIds: null,
  },
  clientName: () => name,
  connectedAt,
  lastCallAt,
});

describe('aiClientsMessage', () => {
  it('groups sessions of one client and token, keeping the oldest start and the latest call', () => {
    const message = aiClientsMessage([
      session('t1', 'Claude Code', 100, 500),
      session('t1', 'Claude Code', 50, 900),
      session('t2', 'Claude Code', 70, null),
      session('t1', null, 80, null),
    ]);
    expect(message.clients).toEqual([
      {
        client: { key: 't1:Claude Code', name: 'Claude Code', token: 'token t1' },
        sessions: 2,
        connected_since: 50,
        last_call_at: 900,
      },
      {
        client: { key: 't1:unknown client', name: 'unknown client', token: 'token t1' },
        sessions: 1,
        connected_since: 80,
        last_call_at: null,
      },
      {
        client: { key: 't2:Claude Code', name: 'Claude Code', token: 'token t2' },
        sessions: 1,
        connected_since: 70,
        last_call_at: null,
      },
    ]);
  });

  it('is empty without sessions and bounded with many', () => {
    expect(aiClientsMessage([]).clients).toEqual([]);
    const many = Array.from({ length: 100 }, (_, i) => session(`t${i}`, 'c', i, null));
    expect(aiClientsMessage(many).clients).toHaveLength(64);
  });
});
