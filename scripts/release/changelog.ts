// CHANGELOG.md in the Keep a Changelog layout: what is under "## [Unreleased]" becomes the
// release's section, "## [YYYY.MM.DD[.N]] - YYYY-MM-DD", and an empty Unreleased section stays on
// top for what comes next.

const UNRELEASED = /^## \[Unreleased\][^\n]*\n/m;
const NEXT_SECTION = /^## \[/m;

/** The changelog with its Unreleased entries moved under `version`, released on `date`. */
export function cutChangelog(text: string, version: string, date: string): string {
  const heading = UNRELEASED.exec(text);
  if (!heading) {
    throw new Error('CHANGELOG.md has no "## [Unreleased]" section: add one with the changes.');
  }
  const start = heading.index + heading[0].length;
  const rest = text.slice(start);
  const next = NEXT_SECTION.exec(rest);
  const end = next ? start + next.index : text.length;
  const entries = text.slice(start, end).trim();
  if (entries === '') {
    throw new Error(
      'Nothing under "## [Unreleased]" in CHANGELOG.md: say what this release changes.',
    );
  }
  const released = `## [Unreleased]\n\n## [${version}] - ${date}\n\n${entries}\n\n`;
  return `${text.slice(0, heading.index)}${released}${text.slice(end)}`.replace(/\n+$/, '\n');
}
