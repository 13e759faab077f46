// The README's tables that are written from the tool definitions and the one policy: the tool
// table (every tool, its family, what the mode and the toggles make of it, what the audit keeps
// out), the mode table and the permission table (policyTables.ts). `npm run docs:tools`
// (scripts/docs/tools.ts) writes them between their `<!-- name:start -->` and `<!-- name:end -->`
// markers; readmeTables.test.ts compares the README's cells with these rows and names the
// command when they differ.
import { PERMISSION_LABELS } from './permissions.js';
import { modeTableRows, permissionTableRows } from './policyTables.js';
import type { PolicyClass } from './tools/define.js';
import { toolList } from './tools/index.js';

/** What the mode makes of each policy class, in the README's words. */
const MODE_WORDS: Readonly<Record<PolicyClass, string>> = {
  free: 'not at all',
  pointer: 'pointer input',
  keys: 'keyboard input',
  clipboard: 'clipboard',
};

/** Rows of the tool table: header, then one row per tool in the order models see them. */
export function toolTableRows(): string[][] {
  return [
    ['tool', 'family', 'does', 'the mode governs it as', 'toggle', 'kept out of the audit'],
    ...toolList.map((d) => [
      `\`${d.name}\``,
      d.kind,
      d.title,
      MODE_WORDS[d.policyClass],
      d.permission === undefined ? '—' : PERMISSION_LABELS[d.permission],
      d.sensitiveArgs === undefined || d.sensitiveArgs.length === 0
        ? '—'
        : d.sensitiveArgs.map((arg) => `\`${arg}\``).join(', '),
    ]),
  ];
}

/** Every generated table of the README, by its marker name. */
export const README_TABLES: Readonly<Record<string, () => string[][]>> = {
  'tool-table': toolTableRows,
  'mode-table': modeTableRows,
  'permission-table': permissionTableRows,
};

function markers(readme: string, name: string): { start: number; end: number } {
  const open = `<!-- ${name}:start -->`;
  const start = readme.indexOf(open);
  const end = readme.indexOf(`<!-- ${name}:end -->`);
  if (start < 0 || end < start) throw new Error(`README.md has no ${name} markers`);
  return { start: start + open.length, end };
}

/** The cells of the markdown table between the markers of `name` (whitespace aside). */
export function readmeTableCells(readme: string, name: string): string[][] {
  const { start, end } = markers(readme, name);
  return readme
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

/** `readme` with the table of `name` replaced by `rows` (unaligned: Prettier aligns it). */
export function withReadmeTable(readme: string, name: string, rows: string[][]): string {
  const { start, end } = markers(readme, name);
  const [header = [], ...body] = rows;
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const table = [line(header), line(header.map(() => '---')), ...body.map(line)].join('\n');
  return `${readme.slice(0, start)}\n\n${table}\n\n${readme.slice(end)}`;
}
