// The recording indicator's words: shown while recording, a notice when it stopped on its own,
// nothing when the bridge says nothing.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { RecordingIndicatorView } from './RecordingIndicator.js';

const on = { on: true, since: null, stopped_reason: null, may_change: false };

describe('RecordingIndicatorView', () => {
  it('says Recording in words while on', () => {
    const html = renderToStaticMarkup(<RecordingIndicatorView status={on} />);
    expect(html).toContain('Recording');
    expect(html).toContain('role="status"');
  });

  it('says why recording stopped and that the desktop keeps working', () => {
    const html = renderToStaticMarkup(
      <RecordingIndicatorView status={{ ...on, stopped_reason: 'disk full' }} />,
    );
    expect(html).toContain('Recording stopped: disk full — the desktop keeps working');
    expect(html).toContain('role="alert"');
  });

  it('shows nothing when off or unknown', () => {
    expect(renderToStaticMarkup(<RecordingIndicatorView status={{ ...on, on: false }} />)).toBe('');
    expect(renderToStaticMarkup(<RecordingIndicatorView status={null} />)).toBe('');
  });
});
