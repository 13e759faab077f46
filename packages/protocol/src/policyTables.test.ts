// The README's mode table and permission table must say what the policy does: both are compared
// cell by cell (whitespace aside, which Prettier owns) with rows derived from decideCall and the
// permission table. Changing a rule without the README, or the README without the rule, fails.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { modeTableRows, permissionTableRows } from './policyTables.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

/** The cells of the markdown table between `<!-- name:start -->` and `<!-- name:end -->`. */
function readmeTable(name: string): string[][] {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(`<!-- ${name}:start -->`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  if (start < 0 || end < start) throw new Error(`README.md has no ${name} markers`);
  return text
    .slice(start, end)
    .split('\n')
    .filter((line) => line.trim().startsWith('|'))
    .filter((line) => !/^\|[\s|:-]+\|$/.test(line.trim()))
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

describe('README policy tables', () => {
  it('the mode table says what decideCall decides', () => {
    expect(readmeTable('mode-table')).toEqual(modeTableRows());
  });

  it('the permission table lists every toggle with its default and what it governs', () => {
    expect(readmeTable('permission-table')).toEqual(permissionTableRows());
  });
});
