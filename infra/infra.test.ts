// Validates the production deployment files without a container engine: Caddy's own
// validator for the Caddyfile, and the invariants that keep the stack safe in compose.yaml
// and the quadlets (only Caddy publishes ports; guacd and the desktop stay on an internal
// network; secrets never sit in the files).
import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);
const here = import.meta.dirname;

interface ComposeService {
  image?: string;
  ports?: string[];
  networks?: string[];
  secrets?: (string | { source: string })[];
  environment?: Record<string, string>;
}

describe('Caddyfile', () => {
  it('passes caddy validate', async () => {
    const { stdout, stderr } = await run('caddy', [
      'validate',
      '--config',
      join(here, 'Caddyfile'),
      '--adapter',
      'caddyfile',
    ]);
    expect(stdout + stderr).toContain('Valid configuration');
  });
});

describe('compose.yaml', () => {
  const load = async () =>
    parse(await readFile(join(here, 'compose.yaml'), 'utf8')) as {
      services: Record<string, ComposeService>;
      networks: Record<string, { internal?: boolean }>;
      secrets: Record<string, { external?: boolean }>;
    };

  it('publishes ports only from caddy', async () => {
    const compose = await load();
    const publishing = Object.entries(compose.services)
      .filter(([, service]) => (service.ports ?? []).length > 0)
      .map(([name]) => name);
    expect(publishing).toEqual(['caddy']);
  });

  it('keeps guacd and the desktop on the internal network only', async () => {
    const compose = await load();
    expect(compose.networks.backend?.internal).toBe(true);
    expect(compose.services.guacd?.networks).toEqual(['backend']);
    expect(compose.services.desktop?.networks).toEqual(['backend']);
    expect(compose.services.guacd?.image).toMatch(/^docker\.io\/guacamole\/guacd:\d+\.\d+\.\d+$/);
  });

  it('keeps the database on the internal network, and its password and URL in secrets', async () => {
    const compose = await load();
    expect(compose.services.postgres?.networks).toEqual(['backend']);
    expect(compose.services.postgres?.ports).toBeUndefined();
    expect(compose.secrets.oc_db_password?.external).toBe(true);
    expect(compose.secrets.oc_database_url?.external).toBe(true);
    const bridgeSecrets = JSON.stringify(compose.services.bridge?.secrets);
    expect(bridgeSecrets).toContain('"target":"DATABASE_URL"');
    const text = await readFile(join(here, 'compose.yaml'), 'utf8');
    expect(text).not.toMatch(/postgres:\/\/[^"'\s]*:[^<"'\s%]+@/);
  });

  it('believes X-Forwarded-For only from the edge network where Caddy is', async () => {
    const compose = await load();
    const edge = (compose.networks.edge as { ipam?: { config?: Array<{ subnet?: string }> } })?.ipam
      ?.config?.[0]?.subnet;
    expect(edge).toBe('10.89.10.0/24');
    expect(compose.services.bridge?.environment?.OC_TRUSTED_PROXIES).toBe(edge);
  });

  it('takes the RDP password from an external secret, never from the file', async () => {
    const compose = await load();
    expect(compose.secrets.oc_rdp_password?.external).toBe(true);
    const text = await readFile(join(here, 'compose.yaml'), 'utf8');
    expect(text).not.toMatch(/PASSWORD\s*[:=]\s*\S/);
    expect(compose.services.bridge?.environment?.OC_RDP_USER).toBe('desktop');
  });
});

describe('quadlets', () => {
  const quadletDir = join(here, 'quadlet');
  const readUnits = async () => {
    const names = await readdir(quadletDir);
    return Promise.all(
      names.map(async (name) => ({ name, text: await readFile(join(quadletDir, name), 'utf8') })),
    );
  };

  it('publish ports only from caddy and reference networks that exist', async () => {
    const units = await readUnits();
    const networkFiles = new Set(
      units.filter((u) => u.name.endsWith('.network')).map((u) => u.name),
    );
    for (const unit of units.filter((u) => u.name.endsWith('.container'))) {
      expect(unit.text).toMatch(/^\[Container\]$/m);
      expect(unit.text).toMatch(/^Image=\S+$/m);
      if (unit.name !== 'oc-caddy.container') expect(unit.text).not.toMatch(/^PublishPort=/m);
      for (const [, network] of unit.text.matchAll(/^Network=(\S+)$/gm)) {
        expect(networkFiles.has(network ?? '')).toBe(true);
      }
    }
  });

  it('run the same guacd image as compose', async () => {
    const compose = parse(await readFile(join(here, 'compose.yaml'), 'utf8')) as {
      services: Record<string, ComposeService>;
    };
    const guacd = await readFile(join(quadletDir, 'oc-guacd.container'), 'utf8');
    expect(guacd).toContain(`Image=${compose.services.guacd?.image ?? 'missing'}`);
  });
});
