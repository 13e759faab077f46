// The ticket exchange shapes: the bridge's current answer parses, a missing ticket does not.
import { describe, expect, it } from 'vitest';
import { ViewerTicketRequest, ViewerTicketResponse } from './ticket.js';

describe('viewer ticket schemas', () => {
  it('accepts the answer the bridge sends', () => {
    const answer = {
      ticket: 'abc_DEF-123',
      expires_at: 1_700_000_000_000,
      url: '/ws/viewer?ticket=abc_DEF-123',
    };
    expect(ViewerTicketResponse.safeParse(answer).success).toBe(true);
  });

  it('rejects an answer without a ticket and unknown request fields', () => {
    expect(ViewerTicketResponse.safeParse({ expires_at: 1 }).success).toBe(false);
    expect(ViewerTicketRequest.safeParse({ headless: true }).success).toBe(true);
    expect(ViewerTicketRequest.safeParse({ admin: true }).success).toBe(false);
  });
});
