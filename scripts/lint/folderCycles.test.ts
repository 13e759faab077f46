// No import cycles between the bridge's folders: the real tree (apps/bridge/src) passes, and
// fixture trees show the check failing on a cycle — naming the loop and the imports that make
// it — while the imports it must let through (a root file at the top or the bottom of the
// layering, tests and `testing/` helpers importing upwards) pass.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeCycles, folderCycles } from './folderCycles.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A source tree in a temporary folder: path -> file text. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'oc-folder-cycles-'));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('folder import cycles', () => {
  it('finds none in apps/bridge/src, and no shipped file imports test-only code', () => {
    expect(describeCycles(folderCycles('apps/bridge/src'))).toBe('');
  });

  it('fails on two folders importing each other, naming the loop and the imports', () => {
    const root = tree({
      'mcp/plane.ts': "import { layout } from '../api/layout.js';\nexport const plane = layout;\n",
      'api/layout.ts': "import type { P } from '../mcp/types.js';\nexport const layout = 1;\n",
      'mcp/types.ts': 'export type P = number;\n',
    });
    const found = folderCycles(root);
    expect(found.cycles).toHaveLength(1);
    expect(describeCycles(found)).toBe(
      [
        'import cycle between folders: api/ -> mcp/ -> api/ (folders in it: api/ mcp/)',
        '  api/layout.ts imports mcp/types.ts',
        '  mcp/plane.ts imports api/layout.ts',
      ].join('\n'),
    );
  });

  it('follows re-exports and dynamic imports around a longer loop', () => {
    const root = tree({
      'a/x.ts': "export { y } from '../b/y.js';\n",
      'b/y.ts': "export const y = () => import('../c/z.js');\n",
      'c/z.ts': "import '../a/x.js';\n",
    });
    expect(folderCycles(root).cycles.map((c) => c.loop)).toEqual([['a/', 'b/', 'c/', 'a/']]);
  });

  it('counts each root file as its own node: a leaf and a top are fine, a root file in a loop is not', () => {
    const layered = tree({
      'config.ts': 'export const config = 1;\n',
      'bridge.ts': "import { t } from './tunnel/t.js';\nimport { config } from './config.js';\n",
      'tunnel/t.ts': "import { config } from '../config.js';\nexport const t = config;\n",
    });
    expect(folderCycles(layered).cycles).toEqual([]);
    const looped = tree({
      'config.ts': "import { size } from './tunnel/size.js';\nexport const config = size;\n",
      'tunnel/size.ts': 'export const size = 1;\n',
      'tunnel/t.ts': "import { config } from '../config.js';\nexport const t = config;\n",
    });
    expect(folderCycles(looped).cycles.map((c) => c.loop)).toEqual([
      ['config.ts', 'tunnel/', 'config.ts'],
    ]);
  });

  it('leaves tests and testing/ helpers out, but reports a shipped file importing one', () => {
    const root = tree({
      'mcp/plane.ts': "export const plane = 1;\nexport * from '../relay/hub.js';\n",
      'relay/hub.ts': 'export const hub = 1;\n',
      'relay/hub.test.ts': "import { plane } from '../mcp/plane.js';\n",
      'relay/testing/stack.ts': "import { plane } from '../../mcp/plane.js';\n",
      'api/routes.ts': "import { stack } from '../relay/testing/stack.js';\n",
    });
    const found = folderCycles(root);
    expect(found.cycles).toEqual([]);
    expect(found.testImports).toEqual(['api/routes.ts imports relay/testing/stack.ts']);
  });

  it('as a command, exits non-zero and prints the cycle', () => {
    const root = tree({
      'cli/serve.ts': "import { d } from '../desktops/d.js';\n",
      'desktops/d.ts': "import { s } from '../cli/source.js';\nexport const d = s;\n",
      'cli/source.ts': 'export const s = 1;\n',
    });
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync('node', ['scripts/lint/folderCycles.js', root], { stdio: 'pipe' });
    } catch (err) {
      const e = err as { status: number; stderr: Buffer };
      failure = { status: e.status, stderr: e.stderr.toString() };
    }
    expect(failure?.status).toBe(1);
    expect(failure?.stderr).toContain('import cycle between folders: cli/ -> desktops/ -> cli/');
  });
});
