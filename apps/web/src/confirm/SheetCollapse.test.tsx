// The sheet's switch opens whole: a request's facts are never hidden before the person saw them,
// and the switch names what it hides (ConfirmDialog's facts). Folding itself is checked in
// e2e/smallThings.spec.ts, where the sheet really is a phone's.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SheetCollapse } from './SheetCollapse.js';

describe('SheetCollapse', () => {
  it('starts expanded, says it shows less, and controls the facts', () => {
    const html = renderToStaticMarkup(<SheetCollapse requestId="r1" />);
    expect(html).toContain('aria-expanded="true"');
    expect(html).toContain('aria-controls="confirm-facts"');
    expect(html).toContain('>Show less</button>');
  });
});
