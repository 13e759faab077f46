// The README's generated tables must say what the definitions and the policy say: the tool table,
// the mode table and the permission table are compared cell by cell (whitespace aside, which
// Prettier owns) with rows derived from the tool definitions, decideCall and the permission
// table. Changing a tool or a rule without the README fails, naming the command that rewrites it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { README_TABLES, readmeTableCells, toolTableRows, withReadmeTable } from './readmeTables.js';

const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

describe('README tables written from the definitions', () => {
  it.each(Object.entries(README_TABLES))('%s is up to date', (name, rows) => {
    expect(
      readmeTableCells(README, name),
      `README.md's ${name} is stale: run \`npm run docs:tools\``,
    ).toEqual(rows());
  });

  it('lists every tool once, with what the audit keeps out', () => {
    const rows = toolTableRows();
    expect(rows.find((row) => row[0] === '`type_text`')?.[5]).toBe('`text`');
    expect(rows.find((row) => row[0] === '`click_at`')?.[5]).toBe('—');
    expect(new Set(rows.map((row) => row[0])).size).toBe(rows.length);
  });

  it('rewrites a table between its markers and reads back what it wrote', () => {
    const text = 'before\n<!-- t:start -->\n| old |\n| --- |\n<!-- t:end -->\nafter\n';
    const rows = [
      ['a', 'b'],
      ['`x`', 'y'],
    ];
    const written = withReadmeTable(text, 't', rows);
    expect(readmeTableCells(written, 't')).toEqual(rows);
    expect(written.startsWith('before\n<!-- t:start -->')).toBe(true);
    expect(written.endsWith('<!-- t:end -->\nafter\n')).toBe(true);
  });
});
