import { describe, expect, it } from 'vitest';
import { aiClientsLabel, aiClientsTitle } from './aiClientsText.js';

const client = (name: string, last: number | null) => ({
  client: { key: `t:${name}`, name, token: 'laptop' },
  sessions: 1,
  connected_since: 0,
  last_call_at: last,
});

describe('AI clients text', () => {
  it('says when no AI is connected', () => {
    expect(aiClientsLabel([], 0)).toBe('No AI connected');
  });

  it('names one client with its token and its last call', () => {
    expect(aiClientsLabel([client('Claude Code', 88_000)], 100_000)).toBe(
      'Claude Code (token “laptop”) · last call 12 s ago',
    );
    expect(aiClientsLabel([client('Cursor', null)], 100_000)).toBe(
      'Cursor (token “laptop”) · no calls yet',
    );
  });

  it('counts several and lists each in the tooltip', () => {
    const both = [client('A', 99_000), client('B', 40_000)];
    expect(aiClientsLabel(both, 100_000)).toBe('2 AI clients connected');
    expect(aiClientsTitle(both, 100_000).split('\n')).toEqual([
      'A (token “laptop”) · last call just now',
      'B (token “laptop”) · last call 1 min ago',
    ]);
  });
});
