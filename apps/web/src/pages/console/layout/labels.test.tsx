// Labels people type for monitors and masks reach the page as text: the picture's rectangles, the
// lists and the viewer addresses rendered with React's server renderer keep hostile strings
// escaped.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { RectBox } from './RectBox.js';
import { MaskList, MonitorList } from './RectLists.js';
import { targetName, type EditorState } from './editorState.js';

const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>';

function expectEscaped(html: string) {
  expect(html).not.toContain('<img');
  expect(html).not.toContain('<script');
  expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;');
}

const noop = () => undefined;

describe('layout labels', () => {
  it('are text on the picture', () => {
    expectEscaped(
      renderToStaticMarkup(
        <RectBox
          kind="mask"
          rect={{ x: 1, y: 2, width: 30, height: 40 }}
          scale={1}
          name={targetName('mask', 0, HOSTILE)}
          lines={['30 × 40']}
          helpId="help"
          onDragStart={noop}
          onKeyDown={noop}
        />,
      ),
    );
  });

  it('are text in the lists', () => {
    const state: EditorState = {
      monitors: [{ x: 0, y: 0, width: 10, height: 10, label: HOSTILE, screen: null }],
      masks: [{ x: 0, y: 0, width: 5, height: 5, label: HOSTILE }],
    };
    expectEscaped(renderToStaticMarkup(<MonitorList state={state} dispatch={noop} />));
    expectEscaped(renderToStaticMarkup(<MaskList masks={state.masks} dispatch={noop} />));
  });
});
