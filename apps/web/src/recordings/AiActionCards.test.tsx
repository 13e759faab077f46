// The AI's action cards, as the player's timeline and the cockpit's live timeline show them: the
// thumbnail is the bridge's picture of the recording at the action's moment (so masks hold in
// it), the click point or the overlay's area marked, the intent, the decision and who made it,
// the outcome and the duration, and the caller's button; a request's card, the person's teach
// answer with what they pointed out marked.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AiActionCards } from './AiActionCards.js';
import { initialState, screenSize } from './playback.js';
import type { AiActionEvent, TeachAnswerEvent } from './recordingsWire.js';

const click: AiActionEvent = {
  t: 1_700_000_000_000,
  kind: 'ai.action',
  id: 'a1',
  tool: 'click_at',
  args: { x: 100, y: 50 },
  intent: 'Press Save',
  decision: 'approved',
  auditDecision: 'confirm',
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
  auditDecision: 'confirm',
  outcome: 'denied_by_person',
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
    // Worded as the audit log words it (decisionWords), never the raw codes ("ok · 42 ms").
    expect(html).toContain('Asked · approved by Ada · done in 42 ms');
    expect(html).toContain('>Asked · denied by the person</p>');
    expect(html).not.toContain('· ok');
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

  it("is marked before the player shows a frame: the size is the recording's first screen size", () => {
    // A buffer's size first (guacd sizes its cursor buffer), then the screen's, then its resize.
    const text =
      '4.size,2.-1,2.11,2.16;4.size,1.0,3.200,3.100;4.sync,13.1700000000000;' +
      '4.size,1.0,3.800,3.600;4.sync,13.1700000001000;';
    const state = initialState(text, 1_700_000_000_000);
    expect(state).toMatchObject({ width: 200, height: 100, at: 1_700_000_000_000, loaded: false });
    expect(render(state.width, state.height)).toContain(
      'class="ai-card__area" aria-hidden="true" style="left:0%;top:0%;width:50%;height:100%"',
    );
    // No screen size in the file (nothing recorded yet): unknown, so no marks, never wrong ones.
    expect(screenSize('4.sync,13.1700000000000;')).toEqual({ width: 0, height: 0 });
    expect(screenSize('4.size,2.10,3.640,3.480;')).toEqual({ width: 0, height: 0 });
  });
});

describe("a request's card with the person's teach answer", () => {
  const ask: AiActionEvent = {
    t: 1_700_000_002_000,
    kind: 'ai.action',
    id: 'a3',
    tool: 'request_annotation',
    intent: 'find the invoice',
    decision: 'allowed',
    durationMs: 4_000,
    outcome: 'ok',
  };
  const answer: TeachAnswerEvent = {
    t: 1_700_000_005_900,
    kind: 'teach.answer',
    question: 'Show me the invoice',
    answer: 'pointed out 2 items: rect 100×50 at 0,50; point 100,50',
    outcome: 'answered',
    by: 'Ada',
    annotations: [
      { kind: 'rect', x: 0, y: 50, width: 100, height: 50, note: '[redacted: 9 characters]' },
      { kind: 'point', x: 100, y: 50 },
    ],
  };
  const html = (answers?: ReadonlyMap<string, TeachAnswerEvent>) =>
    renderToStaticMarkup(
      <AiActionCards
        recordingId="r"
        actions={[click, ask]}
        answers={answers}
        width={201}
        height={101}
        action={() => null}
      />,
    );

  it('says what the AI asked and what the person pointed out, on that card only', () => {
    const shown = html(new Map([['a3', answer]]));
    expect(shown.match(/data-testid="ai-card-answer"/g)).toHaveLength(1);
    expect(shown).toContain(
      '<p class="ai-card__answer" data-testid="ai-card-answer" data-outcome="answered"><q>Show me the invoice</q> — Ada pointed out 2 items: rect 100×50 at 0,50; point 100,50</p>',
    );
    // The answer is on the request's card (the second), after its decision.
    const cards = shown.split('<li ');
    expect(cards[1]).not.toContain('ai-card-answer');
    expect(cards[2]).toContain('ai-card-answer');
  });

  it("marks the person's rectangle and point in teach mode's colour beside the AI's mark", () => {
    const shown = html(new Map([['a3', answer]]));
    // The rectangle 0,50 100×50 on a 201×101 screen: about the lower left quarter.
    expect(shown).toMatch(
      /class="ai-card__area ai-card__mark--taught" aria-hidden="true" style="left:0%;top:49\.50\d*%;width:49\.75\d*%;height:49\.50\d*%"/,
    );
    expect(shown).toContain(
      'class="ai-card__point ai-card__mark--taught" aria-hidden="true" style="left:50%;top:50%"',
    );
    // The click's own mark stays the AI's.
    expect(shown).toContain('class="ai-card__point" aria-hidden="true" style="left:50%;top:50%"');
  });

  it('shows no answer where there is none', () => {
    expect(html()).not.toContain('ai-card-answer');
    expect(html()).not.toContain('ai-card__mark--taught');
  });
});
