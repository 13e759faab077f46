// The bridge image carries what the bridge needs to run: the build stage installs every npm
// workspace (npm ci stops at a workspace whose package.json is missing), and the final stage has
// the package.json and dist of every workspace the bridge imports at run time — read from the
// workspaces' own dependencies, so a new package cannot be left out again (packages/recording
// was: the image's bridge could not start) — and ffmpeg, which video exports run.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRIDGE_CONTAINERFILE } from './testing/containerBridge.js';
import { readStages, type Stage } from './testing/containerfile.js';

const REPO = join(import.meta.dirname, '..');

interface Manifest {
  name: string;
  workspaces?: string[];
  dependencies?: Record<string, string>;
}

async function manifest(dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(REPO, dir, 'package.json'), 'utf8')) as Manifest;
}

/** The workspace folders the bridge needs at run time: its own and its packages', transitively. */
async function runtimeWorkspaces(): Promise<string[]> {
  const root = await manifest('.');
  const byName = new Map<string, string>();
  for (const dir of root.workspaces ?? []) byName.set((await manifest(dir)).name, dir);
  const needed = new Set<string>(['apps/bridge']);
  for (const dir of needed) {
    for (const dependency of Object.keys((await manifest(dir)).dependencies ?? {})) {
      const folder = byName.get(dependency);
      if (folder !== undefined) needed.add(folder);
    }
  }
  return [...needed].sort();
}

/** The sources of every COPY of a stage (all arguments but the destination). */
function copied(stage: Stage): string[] {
  return stage.instructions
    .filter((i) => i.keyword === 'COPY')
    .flatMap((i) => i.args.filter((a) => !a.startsWith('--')).slice(0, -1));
}

describe('the bridge image', () => {
  it('installs every workspace in its build stage', async () => {
    const [build] = await readStages(BRIDGE_CONTAINERFILE);
    const sources = copied(build!);
    for (const dir of (await manifest('.')).workspaces ?? [])
      expect(sources, dir).toContain(`${dir}/package.json`);
  });

  it('carries the package.json and dist of every workspace the bridge runs', async () => {
    const stages = await readStages(BRIDGE_CONTAINERFILE);
    const sources = copied(stages.at(-1)!);
    const workspaces = await runtimeWorkspaces();
    expect(workspaces).toContain('packages/recording');
    for (const dir of workspaces) {
      expect(sources, dir).toContain(`/src/${dir}/package.json`);
      expect(sources, dir).toContain(`/src/${dir}/dist`);
    }
  });

  it('has ffmpeg for video exports in the image that runs', async () => {
    const stages = await readStages(BRIDGE_CONTAINERFILE);
    const runs = stages
      .at(-1)!
      .instructions.filter((i) => i.keyword === 'RUN')
      .map((i) => i.args.join(' '));
    expect(runs.some((run) => /apt-get install\b.*\bffmpeg\b/.test(run))).toBe(true);
  });
});
