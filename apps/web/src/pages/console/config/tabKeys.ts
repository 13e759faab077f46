// The keys of a row of tabs (the WAI-ARIA Authoring Practices tabs pattern, horizontal):
// ←/→ move to the previous/next tab, wrapping around at the ends, Home/End to the first/last.
// Selection follows the focus, since every panel is already in the page.

/** The tab `key` moves to from tab `index` of `count`, or undefined when the key is not a tab key. */
export function tabAfterKey(key: string, index: number, count: number): number | undefined {
  if (count <= 0) return undefined;
  switch (key) {
    case 'ArrowRight':
      return (index + 1) % count;
    case 'ArrowLeft':
      return (index - 1 + count) % count;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return undefined;
  }
}
