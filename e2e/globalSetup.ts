// Before any e2e test: make sure the viewer and the bridge are built, because the tests run
// the built stack (`node apps/bridge/dist/cli/main.js`, which serves apps/web/dist). Builds
// with `npm run build` when an output is missing or a source file changed since the last
// build made here; OC_E2E_SKIP_BUILD=1 tests whatever is already built.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BRIDGE_MAIN, REPO_ROOT } from './support/bridgeProcess.js';

const OUTPUTS = [
  BRIDGE_MAIN,
  ...['index.html', 'console.html', 'signin.html'].map((page) =>
    join(REPO_ROOT, 'apps/web/dist', page),
  ),
];
const STAMP = join(REPO_ROOT, 'node_modules/.cache/overlay-companion/e2e-build-stamp');
const SOURCES = [
  'apps/web/src',
  'apps/web/index.html',
  'apps/web/console.html',
  'apps/web/signin.html',
  'apps/bridge/src',
  'packages/guac/src',
  'packages/protocol/src',
  'packages/gateway/src',
  'public',
];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function needsBuild(): string | undefined {
  const missing = OUTPUTS.find((file) => !existsSync(file));
  if (missing) return `${missing} is missing`;
  if (!existsSync(STAMP)) return 'no build has been made by the e2e setup yet';
  const stamp = statSync(STAMP).mtimeMs;
  const changed = SOURCES.find((source) => newestMtime(join(REPO_ROOT, source)) > stamp);
  return changed ? `${changed} changed since the last build` : undefined;
}

export default function globalSetup(): void {
  if (process.env.OC_E2E_SKIP_BUILD === '1') {
    const missing = OUTPUTS.find((file) => !existsSync(file));
    if (missing)
      throw new Error(
        `OC_E2E_SKIP_BUILD=1 but ${missing} is missing. Run \`npm run build\` first.`,
      );
    return;
  }
  const why = needsBuild();
  if (!why) return;
  process.stdout.write(`e2e: building first (${why}): npm run build\n`);
  const started = Date.now();
  const result = spawnSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(
      '`npm run build` failed, so the e2e tests would run a stale or missing build. Fix the build errors above, or set OC_E2E_SKIP_BUILD=1 to test the build that exists.',
    );
  }
  mkdirSync(join(STAMP, '..'), { recursive: true });
  writeFileSync(STAMP, new Date(started).toISOString());
}
