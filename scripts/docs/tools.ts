// `npm run docs:tools`: rewrites the README's tables that come from the tool definitions and the
// policy (the tool, mode and permission tables, packages/protocol/src/readmeTables.ts) and
// formats the README with Prettier. Run it after adding or changing a tool; the protocol's
// readmeTables.test.ts fails until it is run.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { README_TABLES, withReadmeTable } from '../../packages/protocol/src/readmeTables.js';

const path = fileURLToPath(new URL('../../README.md', import.meta.url));
const before = readFileSync(path, 'utf8');
let text = before;
for (const [name, rows] of Object.entries(README_TABLES))
  text = withReadmeTable(text, name, rows());
const options = (await prettier.resolveConfig(path)) ?? {};
const formatted = await prettier.format(text, { ...options, filepath: path });
if (formatted === before) {
  console.log('README.md: the tables are up to date.');
} else {
  writeFileSync(path, formatted);
  console.log(`README.md: rewrote ${Object.keys(README_TABLES).join(', ')}.`);
}
