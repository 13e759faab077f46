// The bar's words: screen readers read the long words once, whatever the bar draws; the drawn
// copies (long, short) are hidden from them, so a narrow bar never reads "Rec" or "No asking".
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BarWords } from './BarWords.js';

/** The text a screen reader gets: everything outside the (leaf) aria-hidden spans. */
function spoken(html: string): string {
  return html
    .replace(/<span[^>]*aria-hidden="true"[^>]*>[^<]*<\/span>/g, '')
    .replace(/<[^>]+>/g, '');
}

describe('BarWords', () => {
  it('gives screen readers the long words once, and draws both copies for the bar to pick', () => {
    const html = renderToStaticMarkup(<BarWords long="Recording" short="Rec" narrow="laptop" />);
    expect(spoken(html)).toBe('Recording');
    expect(html).toContain('class="visually-hidden"');
    expect(html).toContain('bar-words__long bar-words__long--laptop');
    expect(html).toContain('class="bar-words__short" aria-hidden="true">Rec<');
  });

  it('puts the test id on the copy that holds the words alone', () => {
    const html = renderToStaticMarkup(
      <BarWords long="Connected" narrow="phone" testId="connection-label" />,
    );
    expect(html).toContain('data-testid="connection-label">Connected<');
    expect(html).not.toContain('bar-words__short');
  });
});
