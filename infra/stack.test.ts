// The stack's two descriptions — compose.yaml (podman-compose) and the rootless quadlets in
// quadlet/ — parsed and held to the rules that keep it safe and the two in step: every compose
// service has a quadlet and back; images pinned (built ones from this repository's
// Containerfiles); only Caddy published to the world, the bridge on loopback only; guacd, the
// database and the desktop on the internal network; secrets only as Podman secrets; the names the
// bridge's command uses (guacd:4822, desktop:3389) are the containers' names.
import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readFinalStage } from './testing/containerfile.js';
import { BRIDGE_CONTAINERFILE } from './testing/containerBridge.js';
import { environment, parseUnitFile, values, type UnitFile } from './testing/unitFile.js';

const run = promisify(execFile);
const here = import.meta.dirname;
const PINNED = /^docker\.io\/[\w./-]+:\d+(\.\d+)+(-[\w.-]+)?$/;

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  ports?: string[];
  networks?: string[];
  secrets?: (string | { source: string; target?: string; type?: string })[];
  environment?: Record<string, string>;
  volumes?: string[];
}
interface Compose {
  services: Record<string, ComposeService>;
  networks: Record<string, { internal?: boolean; ipam?: { config?: Array<{ subnet?: string }> } }>;
  secrets: Record<string, { external?: boolean }>;
}

const compose = async () => parse(await readFile(join(here, 'compose.yaml'), 'utf8')) as Compose;

async function quadlets(): Promise<Map<string, UnitFile>> {
  const dir = join(here, 'quadlet');
  const units = new Map<string, UnitFile>();
  for (const name of await readdir(dir)) {
    units.set(name, parseUnitFile(await readFile(join(dir, name), 'utf8'), name));
  }
  return units;
}

const one = (unit: UnitFile | undefined, section: string, key: string): string | undefined =>
  unit === undefined ? undefined : values(unit, section, key).at(-1);

describe('compose.yaml and the quadlets', () => {
  it('have the same services: oc-<service>.container for each, and no other', async () => {
    const { services } = await compose();
    const units = await quadlets();
    const containers = [...units.keys()].filter((n) => n.endsWith('.container'));
    expect(containers.sort()).toEqual(
      Object.keys(services)
        .map((s) => `oc-${s}.container`)
        .sort(),
    );
    for (const name of Object.keys(services)) {
      expect(one(units.get(`oc-${name}.container`), 'Container', 'ContainerName')).toBe(name);
    }
  });

  it('every unit parses with the sections quadlet needs, and installs for the user (rootless)', async () => {
    for (const [name, unit] of await quadlets()) {
      const kind = name.split('.').pop()!;
      const section = kind[0]!.toUpperCase() + kind.slice(1);
      expect(unit.has(section), `${name} has [${section}]`).toBe(true);
      if (kind === 'container') {
        expect(values(unit, 'Install', 'WantedBy'), name).toEqual(['default.target']);
        expect(one(unit, 'Service', 'Restart'), name).toBe('always');
        // Host paths below the user's home (%h), never system paths a rootless user cannot own.
        for (const volume of values(unit, 'Container', 'Volume')) {
          expect(volume, name).toMatch(/^(oc-[\w-]+|%h\/)/);
        }
      }
    }
  });

  it('pin every image; built images come from this repository by .build units', async () => {
    const { services } = await compose();
    const units = await quadlets();
    for (const [name, service] of Object.entries(services)) {
      const image = one(units.get(`oc-${name}.container`), 'Container', 'Image');
      if (service.build) {
        expect(service.image, name).toMatch(/^localhost\/overlay-companion\//);
        expect(image, name).toBe(`oc-${name}.build`);
        const build = units.get(`oc-${name}.build`);
        expect(one(build, 'Build', 'ImageTag'), name).toBe(service.image);
        const file = one(build, 'Build', 'File')!;
        const context = one(build, 'Build', 'SetWorkingDirectory')!;
        const source = '%h/.local/share/overlay-companion/src';
        // The same Containerfile and context as compose (compose paths are relative to infra/).
        expect(file).toBe(
          `${source}/${join('infra', service.build.context, service.build.dockerfile)}`,
        );
        expect(context).toBe(join(source, 'infra', service.build.context));
      } else {
        expect(service.image, name).toMatch(PINNED);
        expect(image, name).toBe(service.image);
      }
    }
    for (const file of ['bridge/Containerfile', 'desktop/Containerfile']) {
      const text = await readFile(join(here, file), 'utf8');
      for (const [, from] of text.matchAll(/^FROM (\S+)/gm)) expect(from, file).toMatch(PINNED);
    }
  });

  it('publish to the world only from Caddy, and the bridge on the loopback only', async () => {
    const { services } = await compose();
    const units = await quadlets();
    for (const [name, service] of Object.entries(services)) {
      const published = [
        ...(service.ports ?? []),
        ...values(units.get(`oc-${name}.container`)!, 'Container', 'PublishPort'),
      ];
      if (name === 'caddy')
        expect(published.sort()).toEqual(['443:443', '443:443', '80:80', '80:80']);
      else if (name === 'bridge') {
        expect(published).toEqual(['127.0.0.1:8080:8080', '127.0.0.1:8080:8080']);
      } else expect(published, name).toEqual([]);
    }
  });

  it('keep guacd, the database and the desktop on the internal network', async () => {
    const { services, networks } = await compose();
    const units = await quadlets();
    expect(networks.backend?.internal).toBe(true);
    expect(one(units.get('oc-backend.network'), 'Network', 'Internal')).toBe('true');
    const quadletNetwork: Record<string, string> = {
      edge: 'oc-edge.network',
      backend: 'oc-backend.network',
    };
    for (const [name, service] of Object.entries(services)) {
      const unitNetworks = values(units.get(`oc-${name}.container`)!, 'Container', 'Network');
      expect(unitNetworks, name).toEqual((service.networks ?? []).map((n) => quadletNetwork[n]));
      for (const network of unitNetworks) expect(units.has(network), network).toBe(true);
    }
    for (const name of ['guacd', 'postgres', 'desktop']) {
      expect(services[name]?.networks, name).toEqual(['backend']);
    }
    expect(services.caddy?.networks).toEqual(['edge']);
  });

  it('believe X-Forwarded-For only from the edge network, where Caddy is', async () => {
    const { services, networks } = await compose();
    const units = await quadlets();
    const edge = networks.edge?.ipam?.config?.[0]?.subnet;
    expect(edge).toBe(one(units.get('oc-edge.network'), 'Network', 'Subnet'));
    expect(services.bridge?.environment?.OC_TRUSTED_PROXIES).toBe(edge);
    expect(environment(units.get('oc-bridge.container')!).OC_TRUSTED_PROXIES).toBe(edge);
  });

  it('take passwords and the database URL from Podman secrets, never from the files', async () => {
    const { services, secrets } = await compose();
    const units = await quadlets();
    for (const secret of Object.values(secrets)) expect(secret.external).toBe(true);
    const composeEnvSecrets = (services.bridge?.secrets ?? [])
      .filter((s) => typeof s === 'object' && s.type === 'env')
      .map((s) => (typeof s === 'object' ? `${s.source},type=env,target=${s.target}` : s));
    expect(values(units.get('oc-bridge.container')!, 'Container', 'Secret').sort()).toEqual(
      composeEnvSecrets.sort(),
    );
    expect(composeEnvSecrets.join()).toContain('target=DATABASE_URL');
    for (const name of ['postgres', 'desktop']) {
      const mounted = (services[name]?.secrets ?? []).map(String);
      expect(values(units.get(`oc-${name}.container`)!, 'Container', 'Secret')).toEqual(mounted);
    }
    for (const file of ['compose.yaml', ...[...units.keys()].map((n) => `quadlet/${n}`)]) {
      const text = await readFile(join(here, file), 'utf8');
      expect(text, file).not.toMatch(/(PASSWORD|SECRET|TOKEN)[A-Z_]*\s*[:=]\s*[^\s/$][^\s]*/);
      expect(text, file).not.toMatch(/postgres:\/\/[^"'\s]*:[^<"'\s%$]+@/);
    }
  });

  it("name guacd and the desktop as the bridge's start command reaches them", async () => {
    const { services } = await compose();
    const { command } = await readFinalStage(BRIDGE_CONTAINERFILE);
    const flag = (name: string) => command[command.indexOf(name) + 1];
    expect(flag('--guacd')).toBe('guacd:4822');
    expect(flag('--rdp')).toBe('desktop:3389');
    expect(services.guacd).toBeDefined();
    expect(services.desktop).toBeDefined();
    const desktop = await readFile(join(here, 'desktop/Containerfile'), 'utf8');
    expect(desktop).toMatch(/^EXPOSE 3389$/m);
    // The bridge signs in as the desktop container's user.
    expect(services.bridge?.environment?.OC_RDP_USER).toBe('desktop');
    expect(desktop).toContain('useradd --create-home --shell /bin/bash desktop');
  });

  it("the desktop's start script is valid sh and reads the secret where Podman mounts it", async () => {
    await run('sh', ['-n', join(here, 'desktop/start.sh')]);
    const script = await readFile(join(here, 'desktop/start.sh'), 'utf8');
    expect(script).toContain('/run/secrets/oc_rdp_password');
  });
});
