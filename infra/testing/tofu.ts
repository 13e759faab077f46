// Test support for the OpenTofu modules: which of `tofu` and `terraform` is on PATH (the same
// language for what the modules use), and the stack module evaluated offline with variables —
// `init` and `console` in a copy of infra/ (so init's .terraform never lands in the repository),
// printing one expression as JSON.
import { execFile, execFileSync } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const INFRA = join(import.meta.dirname, '..');

/** No user CLI config, no telemetry, no prompts. */
export const TOFU_ENV = {
  ...process.env,
  TF_CLI_CONFIG_FILE: '/dev/null',
  TF_IN_AUTOMATION: '1',
  CHECKPOINT_DISABLE: '1',
};

/** tofu, else terraform, else undefined. */
export function tofuTool(): string | undefined {
  for (const name of ['tofu', 'terraform']) {
    try {
      execFileSync(name, ['version'], { stdio: 'ignore', env: TOFU_ENV });
      return name;
    } catch {
      // not installed
    }
  }
  return undefined;
}

/** A copy of infra/ in a temporary dir (removed by the returned function). */
export async function infraCopy(): Promise<{ root: string; remove(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'oc-tofu-'));
  await cp(INFRA, join(root, 'infra'), { recursive: true });
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

/** `expression` (an HCL expression of a JSON string) evaluated in the stack module with `vars`. */
export async function renderStack<T>(tool: string, vars: string[], expression: string): Promise<T> {
  const copy = await infraCopy();
  try {
    const cwd = join(copy.root, 'infra/tofu/modules/stack');
    await run(tool, ['init', '-backend=false', '-input=false', '-no-color'], {
      cwd,
      env: TOFU_ENV,
    });
    const child = execFile(tool, ['console', '-no-color', ...vars.flatMap((v) => ['-var', v])], {
      cwd,
      env: TOFU_ENV,
    });
    child.stdin?.end(`${expression}\n`);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve, reject) =>
      child.once('exit', (code) =>
        code === 0 ? resolve(code) : reject(new Error(`console exited ${String(code)}`)),
      ),
    );
    return JSON.parse(JSON.parse(out.trim()) as string) as T;
  } finally {
    await copy.remove();
  }
}
