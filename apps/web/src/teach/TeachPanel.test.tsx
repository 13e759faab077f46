// The teach panel shows what the AI and the person wrote as text (a hostile prompt or note
// stays escaped), the items numbered as on the layer, the count against max_items and the time
// left; the panel starts away from the asked area; the tab title cue comes and goes.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TeachPanelView, describeItem, panelSideFor, timeLeftText } from './TeachPanel.js';
import { TEACH_TITLE_PREFIX, teachTitle } from './teachCue.js';
import type { TeachRequest } from './teachStore.js';

const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>';

const request: TeachRequest = {
  id: 1,
  prompt: HOSTILE,
  area: { x: 1500, y: 20, width: 300, height: 200, monitorLabel: 'monitor 1' },
  maxItems: 2,
  masks: [],
  openedAt: 0,
  deadlineAt: 65_000,
  items: [
    { key: 4, kind: 'rect', x: 10, y: 20, width: 100, height: 50, note: HOSTILE },
    { key: 9, kind: 'point', x: 7, y: 8, width: 1, height: 1, note: '' },
  ],
  notice: null,
  outcome: null,
};

describe('TeachPanelView', () => {
  const html = renderToStaticMarkup(
    <TeachPanelView request={request} now={0} side="left" onMove={() => undefined} />,
  );

  it('renders the prompt and the notes as text, never markup', () => {
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;');
    expect(html.match(/&lt;script&gt;/g)?.length).toBe(2);
  });

  it('lists the items numbered, with their note fields and Remove, the count and the time', () => {
    expect(html).toContain('Rectangle 100 × 50 at 10, 20');
    expect(html).toContain('Point at 7, 8');
    expect(html).toContain('aria-label="Note for item 2"');
    expect(html).toContain('aria-label="Remove item 1"');
    expect(html).toContain('maxLength="500"');
    expect(html).toContain('2 of 2 (the most the AI asked for) · 1:05 left');
    expect(html).toContain('It asks about the highlighted area: 300 × 200 at 1500, 20 (monitor 1)');
  });
});

describe('panel helpers', () => {
  it('starts on the left unless the asked area is in the left half of what the window shows', () => {
    expect(panelSideFor({ area: null }, 0, 2560)).toBe('left');
    expect(panelSideFor(request, 0, 2560)).toBe('left');
    expect(panelSideFor({ area: { ...request.area!, x: 100 } }, 0, 2560)).toBe('right');
    // A cropped window showing x 1280..2560: the area at 1500 is in its left half.
    expect(panelSideFor(request, 1280, 1280)).toBe('right');
  });

  it('describes items and time left', () => {
    expect(describeItem({ kind: 'point', x: 1, y: 2, width: 1, height: 1 })).toBe('Point at 1, 2');
    expect(timeLeftText(0)).toBe('0:00');
    expect(timeLeftText(59_001)).toBe('1:00');
    expect(timeLeftText(600_000)).toBe('10:00');
  });

  it('puts the tab title cue in front once, and takes it away', () => {
    const open = teachTitle('(1) Approval waiting — Overlay Companion', true);
    expect(open).toBe(`${TEACH_TITLE_PREFIX}(1) Approval waiting — Overlay Companion`);
    expect(teachTitle(open, true)).toBe(open);
    expect(teachTitle(open, false)).toBe('(1) Approval waiting — Overlay Companion');
    expect(teachTitle('Overlay Companion', false)).toBe('Overlay Companion');
  });
});
