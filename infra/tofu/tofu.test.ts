// The OpenTofu modules: every *.tf file parsed with an HCL parser (@cdktf/hcl2json); every
// var.NAME used is declared; every templatefile() call names a template that exists and passes
// exactly the names that template uses; secret-like variables are sensitive with no default but
// empty; no secret is written into any file. Then, when `tofu` (or Terraform, which reads the
// same files) is on PATH: `validate` offline (the modules need no provider downloads) and the
// stack rendered with test values — install.sh is valid sh, the drop-ins parse, the bridge's Exec
// is the Containerfile's CMD, and the secrets appear only in the secrets upload.
import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { getReferencesInExpression, parse } from '@cdktf/hcl2json';
import { describe, expect, it } from 'vitest';
import { readFinalStage } from '../testing/containerfile.js';
import { BRIDGE_CONTAINERFILE } from '../testing/containerBridge.js';
import { infraCopy, renderStack, tofuTool, TOFU_ENV } from '../testing/tofu.js';
import { parseUnitFile, values } from '../testing/unitFile.js';

const run = promisify(execFile);
const here = import.meta.dirname;

async function filesUnder(dir: string, suffix: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(suffix) && !entry.parentPath.includes('.terraform')) {
      found.push(join(entry.parentPath, entry.name));
    }
  }
  return found.sort();
}

type Block = Record<string, unknown>;
async function parseModule(dir: string): Promise<{ json: Block[]; text: string }> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.tf'));
  const json: Block[] = [];
  let text = '';
  for (const file of files) {
    const source = await readFile(join(dir, file), 'utf8');
    json.push((await parse(file, source)) as Block);
    text += source;
  }
  return { json, text };
}

const MODULES = ['modules/stack', 'modules/desktop-vm', 'examples/single-host'];
const SECRET_NAME = /password|secret|token|private_key/;

/** The names a template reads: identifiers in ${…} and %{…} that are not its own loop names. */
function templateNames(template: string): Set<string> {
  const names = new Set<string>();
  const loopNames = new Set<string>();
  for (const [, expression] of template.matchAll(/[$%]\{~?([^}]*?)~?\}/g)) {
    const code = expression!.replace(/"[^"]*"/g, '');
    const loop = /^\s*for\s+([\w\s,]+)\s+in\s+(.*)$/.exec(code);
    if (loop) loop[1]!.split(',').forEach((n) => loopNames.add(n.trim()));
    for (const [ident] of (loop ? loop[2]! : code).matchAll(/(?<![\w.])[a-z_]\w*\b(?!\s*\()/g)) {
      if (!['if', 'else', 'endif', 'endfor', 'for', 'in', 'true', 'false', 'null'].includes(ident))
        names.add(ident);
    }
  }
  for (const name of loopNames) names.delete(name);
  return names;
}

describe('OpenTofu files', () => {
  it('every .tf file parses as HCL', async () => {
    const files = await filesUnder(here, '.tf');
    expect(files.length).toBeGreaterThanOrEqual(9);
    for (const file of files) {
      await expect(
        parse(file, await readFile(file, 'utf8')),
        relative(here, file),
      ).resolves.toBeTypeOf('object');
    }
  });

  it.each(MODULES)('%s: every var.NAME used is declared', async (dir) => {
    const { json, text } = await parseModule(join(here, dir));
    const declared = new Set(json.flatMap((b) => Object.keys((b.variable as Block) ?? {})));
    const refs = await getReferencesInExpression(
      'main.tf',
      `\${[${[...text.matchAll(/var\.\w+/g)].map((m) => m[0]).join(', ')}]}`,
    );
    for (const ref of refs) expect(declared.has(ref.value.split('.')[1]!), ref.value).toBe(true);
    expect(refs.length).toBeGreaterThan(0);
  });

  it.each(MODULES)('%s: secrets are sensitive variables without a real default', async (dir) => {
    const { json } = await parseModule(join(here, dir));
    for (const block of json) {
      for (const [name, [spec]] of Object.entries(
        (block.variable ?? {}) as Record<string, Block[]>,
      )) {
        if (!SECRET_NAME.test(name)) continue;
        expect(spec?.sensitive, `${dir}: variable ${name}`).toBe(true);
        expect([undefined, ''], `${dir}: default of ${name}`).toContain(spec?.default);
      }
    }
  });

  it('every templatefile() names an existing template and passes exactly what it uses', async () => {
    let calls = 0;
    for (const dir of MODULES) {
      const { text } = await parseModule(join(here, dir));
      for (const [, path, args] of text.matchAll(
        /templatefile\("\$\{path\.module\}\/([^"]+)",\s*\{([\s\S]*?)\n\s*\}\)/g,
      )) {
        calls += 1;
        const template = await readFile(join(here, dir, path!), 'utf8');
        const passed = new Set([...args!.matchAll(/^\s*(\w+)\s*=/gm)].map((m) => m[1]!));
        expect([...templateNames(template)].sort(), `${dir}/${path}`).toEqual([...passed].sort());
      }
    }
    expect(calls).toBe(7);
  });

  it('no file holds a secret: no literal passwords, keys or tokens', async () => {
    const files = [
      ...(await filesUnder(here, '.tf')),
      ...(await filesUnder(here, '.tftpl')),
      ...(await filesUnder(here, '.conf')),
    ];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      expect(text, file).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----/);
      expect(text, file).not.toMatch(/(password|secret|token)\s*=\s*"[^"$]+"/i);
      expect(text, file).not.toMatch(/\boc_[A-Za-z0-9_-]{20,}/);
    }
  });
});

const tf = tofuTool();
if (tf === undefined)
  console.warn('skipping tofu validate and rendering: neither tofu nor terraform is on PATH');

describe.skipIf(tf === undefined)(`${tf ?? 'tofu'} validate and render`, () => {
  const env = TOFU_ENV;

  it('validates every module offline', async () => {
    const copy = await infraCopy();
    try {
      for (const dir of MODULES) {
        const cwd = join(copy.root, 'infra/tofu', dir);
        await run(tf!, ['init', '-backend=false', '-input=false', '-no-color'], { cwd, env });
        const { stdout } = await run(tf!, ['validate', '-no-color'], { cwd, env });
        expect(stdout, dir).toContain('The configuration is valid');
      }
    } finally {
      await copy.remove();
    }
  });

  it('renders the stack: valid install.sh, parseable drop-ins, the image CMD, secrets only in the upload', async () => {
    const rdpPassword = 'rdp-Pass-7f3e9a1c';
    const adminPassword = 'adm-Pass-2b8d4e6f';
    {
      const vars = [
        'host=203.0.113.7',
        'domain=desk.example.test',
        'acme_email=ops@example.test',
        `rdp_password=${rdpPassword}`,
        'admin_user=admin',
        `admin_password=${adminPassword}`,
        'oidc_issuer=https://id.example.test',
        'oidc_client_id=overlay',
      ];
      const rendered = await renderStack<{
        files: Record<string, string>;
        install: string;
        secrets: string;
      }>(
        tf!,
        vars,
        'nonsensitive(jsonencode({ files = local.files, install = local.install_script, secrets = local.secrets_file }))',
      );
      const systemd = '.config/containers/systemd/';
      for (const [path, text] of Object.entries(rendered.files)) {
        expect(text, path).not.toContain(rdpPassword);
        expect(text, path).not.toContain(adminPassword);
        if (path.startsWith(systemd)) parseUnitFile(text, path);
      }
      expect(rendered.install).not.toContain(rdpPassword);
      expect(rendered.secrets).toContain(Buffer.from(rdpPassword).toString('base64'));
      const site = parseUnitFile(rendered.files[`${systemd}oc-bridge.container.d/10-site.conf`]!);
      const { command } = await readFinalStage(BRIDGE_CONTAINERFILE);
      expect(values(site, 'Container', 'Exec')).toEqual([command.slice(2).join(' ')]);
      expect(values(site, 'Container', 'Secret')).toEqual([
        'oc_admin_password,type=env,target=OC_ADMIN_PASSWORD',
      ]);
      expect(values(site, 'Container', 'Environment')).toContain(
        'OC_PUBLIC_URL=https://desk.example.test',
      );
      const limits = parseUnitFile(
        rendered.files[`${systemd}oc-bridge.container.d/20-limits.conf`]!,
      );
      expect(values(limits, 'Container', 'PodmanArgs')).toEqual(['--memory=1g --cpus=2']);
      await run('sh', ['-n', '-c', rendered.install]);
    }
  });
});
