// The approval preview on the wire: approvals_waiting and the fleet feed take the AI's intent and
// a bounded base64 PNG square, and refuse what a window must not pass on (a huge or non-base64
// picture, an intent with control characters the tool's own schema refuses).
import { describe, expect, it } from 'vitest';
import { ApprovalsWaitingMessage } from './messages.js';
import { MAX_APPROVAL_PREVIEW_BASE64 } from './approvalPreview.js';
import { FleetApproval } from './fleet.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const waiting = (extra: object) => ({
  type: 'approvals_waiting',
  requests: [{ title: 'Click', deadline_in_ms: 1000, request_id: 'r1', ...extra }],
});

describe('approval previews', () => {
  it('carries an intent and a preview square', () => {
    const parsed = ApprovalsWaitingMessage.parse(
      waiting({ intent: 'Save the file', preview: { x: 3, y: 4, png: PNG } }),
    );
    expect(parsed.requests[0]).toMatchObject({ intent: 'Save the file', preview: { x: 3, y: 4 } });
    expect(
      FleetApproval.safeParse({
        title: 'Click',
        asked_at: 1,
        deadline_at: 2,
        intent: 'Save the file',
        preview: { x: 3, y: 4, png: PNG },
      }).success,
    ).toBe(true);
  });

  it('refuses a preview that is not base64, too large, or off the desktop', () => {
    const bad = [
      { x: 3, y: 4, png: '<svg onload=alert(1)>' },
      { x: 3, y: 4, png: 'A'.repeat(MAX_APPROVAL_PREVIEW_BASE64 + 4) },
      { x: -1, y: 4, png: PNG },
      { x: 3, y: 4, png: PNG, src: 'https://elsewhere.example/' },
    ];
    for (const preview of bad)
      expect(
        ApprovalsWaitingMessage.safeParse(waiting({ preview })).success,
        JSON.stringify(preview).slice(0, 60),
      ).toBe(false);
  });

  it("refuses an intent the tools' own schema refuses", () => {
    expect(ApprovalsWaitingMessage.safeParse(waiting({ intent: 'a\u202eb' })).success).toBe(false);
    expect(ApprovalsWaitingMessage.safeParse(waiting({ intent: 'x'.repeat(201) })).success).toBe(
      false,
    );
  });
});
