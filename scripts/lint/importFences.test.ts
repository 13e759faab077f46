// The import fences lint a forbidden import as an error, with the words that say why, and let
// the allowed ones through: fixtures linted with exactly the rules eslint.config.js uses
// (importFences.js), under the path each would have in the repository.
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { importFences } from './importFences.js';

const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfigFile: true,
  overrideConfig: [
    { files: ['**/*.{ts,tsx}'], languageOptions: { parser: tseslint.parser } },
    ...importFences,
  ],
});

/** The fence messages for `source` linted as if it were `path`. */
async function fenceErrors(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports')
    .map((m) => m.message);
}

describe('import fences', () => {
  it.each([
    ['packages/protocol/src/x.ts', "import { x } from '@overlay-companion/guac';", /zod only/],
    [
      'packages/protocol/src/tools/x.ts',
      "import { x } from '../../../../apps/bridge/src/config.js';",
      /zod only/,
    ],
    [
      'packages/guac/src/x.ts',
      "import { x } from '@overlay-companion/protocol';",
      /nothing of ours/,
    ],
    [
      'packages/gateway/src/x.ts',
      "import { x } from '@overlay-companion/protocol';",
      /only @overlay-companion\/guac/,
    ],
    [
      'apps/web/src/x.ts',
      "import { startBridge } from '@overlay-companion/bridge';",
      /never bridge or gateway code/,
    ],
    [
      'apps/web/src/control/x.ts',
      "import { x } from '../../../bridge/src/bridge.js';",
      /never bridge or gateway code/,
    ],
    [
      'apps/bridge/src/x.ts',
      "import { x } from '@overlay-companion/testing';",
      /never the web app or the test kit/,
    ],
  ])('refuses %s importing across a fence', async (path, source, why) => {
    const errors = await fenceErrors(path, source);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(why);
  });

  it.each([
    ['packages/protocol/src/x.ts', "import { z } from 'zod';\nimport { y } from './y.js';"],
    ['packages/gateway/src/x.ts', "import { x } from '@overlay-companion/guac';"],
    ['apps/web/src/x.ts', "import { x } from '@overlay-companion/protocol';"],
    [
      'apps/bridge/src/x.ts',
      "import { a } from '@overlay-companion/gateway';\nimport { b } from '@overlay-companion/gateway/testing';\nimport { c } from '../mcp/x.js';",
    ],
  ])('lets %s import what the table allows', async (path, source) => {
    expect(await fenceErrors(path, source)).toEqual([]);
  });
});
