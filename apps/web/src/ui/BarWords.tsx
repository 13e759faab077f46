// Words in the viewer's bar that a narrower bar shortens or drops: screen readers always read the
// long words (one copy, visually hidden), and the bar shows the long words, the short ones or
// none by its width (styles.css, the bar at a laptop's and a phone's width) — so the bar's CSS
// only switches which copy is drawn and "visually hidden" keeps one definition (theme.css).

/**
 * Below which width the bar stops drawing the long words: `laptop` (under 2560 px, or 3840 px
 * where the type is scaled up; the short words, if any, are drawn instead), `phone` (up to 720 px, where a good connection is its
 * green dot) or `never`.
 */
export type BarWordsNarrow = 'laptop' | 'phone' | 'never';

export function BarWords({
  long,
  short,
  narrow,
  testId,
}: {
  long: string;
  short?: string | undefined;
  narrow: BarWordsNarrow;
  /** On the copy screen readers read (it holds the words alone). */
  testId?: string | undefined;
}) {
  return (
    <>
      <span className="visually-hidden" data-testid={testId}>
        {long}
      </span>
      <span className={`bar-words__long bar-words__long--${narrow}`} aria-hidden="true">
        {long}
      </span>
      {short !== undefined && (
        <span className="bar-words__short" aria-hidden="true">
          {short}
        </span>
      )}
    </>
  );
}
