// The AI's action cards, as the player's timeline and the cockpit's live timeline show them: the
// thumbnail is the bridge's picture of the recording at the action's moment (so masks hold in
// it), the click point or the overlay's area marked, the intent, the decision and who made it,
// the outcome and the duration, and the caller's button.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AiActionCards } from './AiActionCards.js';
import type { AiActionEvent } from './recordingsWire.js';

const click: AiActionEvent = {
  t: 1_700_000_000_000,
  kind: 'ai.action',
  id: 'a1',
  tool: 'click_at',
  args: { x: 100, y: 50 },
  intent: 'Press Save',
  decision: 'approved',
  approvedBy: 'Ada',
  point: { x: 100, y: 50 },
  durationMs: 41.6,
  outcome: 'ok',
};
const overlay: AiActionEvent = {
  t: 1_700_000_001_000,
  kind: 'ai.action',
  id: 'a2',
  tool: 'draw_overlay',
  args: { x: 0, y: 0, width: 100, height: 100 },
  decision: 'denied',
};

function render(width = 200, height = 100): string {
  return renderToStaticMarkup(
    <AiActionCards
      recordingId="rec/1"
      actions={[click, overlay]}
      width={width}
      height={height}
      action={(a) => <button type="button">Go {a.id}</button>}
    />,
  );
}

describe('AiActionCards', () => {
  it("shows each action with the recording's picture at its moment, what the AI meant and what was decided", () => {
    const html = render();
    expect(html).toContain(`src="/api/recordings/rec%2F1/frame?t=${click.t}&amp;width=240"`);
    expect(html).toContain('<q>Press Save</q>');
    expect(html).toContain('approved by Ada · ok · 42 ms');
    expect(html).toContain('data-decision="denied"');
    expect(html).toContain('Go a1');
    expect(html).toContain('Go a2');
  });

  it('marks the click point and the overlay area on the thumbnail, nothing while the size is unknown', () => {
    // The middle of the clicked pixel: (100 + 0.5) / 201 and (50 + 0.5) / 101.
    expect(render(201, 101)).toContain(
      'class="ai-card__point" aria-hidden="true" style="left:50%;top:50%"',
    );
    const html = render();
    expect(html).toContain(
      'class="ai-card__area" aria-hidden="true" style="left:0%;top:0%;width:50%;height:100%"',
    );
    const unknown = render(0, 0);
    expect(unknown).not.toContain('ai-card__point');
    expect(unknown).not.toContain('ai-card__area');
  });
});
