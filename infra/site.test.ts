// The site deployment (infra/site/): several bridges behind Caddy, a three-node NATS cluster,
// PostgreSQL and a gateway pool. Checked without a container engine: compose.yaml and the template
// quadlets describe the same containers with the same images, networks, published ports and
// secrets (only Caddy to the world, each bridge on loopback only, NATS, the gateways, guacd and the
// database on the internal network); the bridges name every NATS node and every pool member, and
// Caddy every bridge (`caddy adapt`: three upstreams, least connections, passive health); the NATS
// config passes `nats-server -t` and three real nats-servers started with it form a cluster whose
// JetStream keeps a bucket on all three; and the OpenTofu stack module rendered with counts
// (`terraform`/`tofu console`, when one is on PATH) installs the template units, one service per
// instance, the site's drop-ins and an install.sh that is valid sh.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect } from 'nats';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '@overlay-companion/gateway';
import { renderStack, tofuTool } from './testing/tofu.js';
import { environment, parseUnitFile, values, type UnitFile } from './testing/unitFile.js';

const run = promisify(execFile);
const here = import.meta.dirname;
const site = join(here, 'site');

interface Service {
  image?: string;
  command?: string[];
  ports?: string[];
  networks?: string[];
  environment?: Record<string, string>;
  secrets?: (string | { source: string; target?: string; type?: string })[];
  volumes?: string[];
}
interface Compose {
  services: Record<string, Service>;
  networks: Record<string, { internal?: boolean; ipam?: { config?: { subnet?: string }[] } }>;
  secrets: Record<string, { external?: boolean }>;
}

const compose = async () =>
  parse(await readFile(join(site, 'compose.yaml'), 'utf8'), { merge: true }) as Compose;

async function unitsIn(dir: string): Promise<Map<string, UnitFile>> {
  const units = new Map<string, UnitFile>();
  for (const name of await readdir(dir))
    units.set(name, parseUnitFile(await readFile(join(dir, name), 'utf8'), name));
  return units;
}

/** The quadlet that runs a compose service: a template for numbered ones, else the single host's. */
async function unitFor(service: string): Promise<{ unit: UnitFile; instance: string }> {
  const numbered = /^(bridge|gateway|nats)-(\d)$/.exec(service);
  if (numbered)
    return {
      unit: (await unitsIn(join(site, 'quadlet'))).get(`oc-${numbered[1]!}@.container`)!,
      instance: numbered[2]!,
    };
  return {
    unit: (await unitsIn(join(here, 'quadlet'))).get(`oc-${service}.container`)!,
    instance: '',
  };
}

const one = (unit: UnitFile, key: string, instance: string): string | undefined =>
  values(unit, 'Container', key).at(-1)?.replaceAll('%i', instance);

describe('the site: compose.yaml and the quadlets', () => {
  it('run every compose service from a quadlet with the same name and image', async () => {
    const { services } = await compose();
    expect(Object.keys(services).filter((s) => s.startsWith('bridge-'))).toHaveLength(3);
    expect(Object.keys(services).filter((s) => s.startsWith('nats-'))).toHaveLength(3);
    expect(Object.keys(services).filter((s) => s.startsWith('gateway-'))).toHaveLength(2);
    for (const [name, service] of Object.entries(services)) {
      const { unit, instance } = await unitFor(name);
      expect(unit, name).toBeDefined();
      expect(one(unit, 'ContainerName', instance), name).toBe(name);
      const image = one(unit, 'Image', instance);
      if (service.image?.startsWith('localhost/')) expect(image, name).toMatch(/\.build$/);
      else expect(image, name).toBe(service.image);
    }
  });

  it('publish to the world only from Caddy, each bridge on loopback only', async () => {
    const { services } = await compose();
    for (const [name, service] of Object.entries(services)) {
      const { unit, instance } = await unitFor(name);
      const published = values(unit, 'Container', 'PublishPort').map((p) =>
        p.replaceAll('%i', instance),
      );
      if (name === 'caddy') expect(service.ports?.sort()).toEqual(['443:443', '80:80']);
      else if (name.startsWith('bridge-')) {
        const loopback = `127.0.0.1:808${name.slice(-1)}:8080`;
        expect(service.ports, name).toEqual([loopback]);
        expect(published, name).toEqual([loopback]);
      } else {
        expect(service.ports ?? [], name).toEqual([]);
        expect(published, name).toEqual([]);
      }
    }
  });

  it('keep NATS, the gateways, guacd and the database off the edge, on the internal network', async () => {
    const { services, networks } = await compose();
    expect(networks.backend?.internal).toBe(true);
    for (const name of ['nats-1', 'nats-2', 'nats-3', 'postgres'])
      expect(services[name]?.networks, name).toEqual(['backend']);
    // The pool reaches desktops on other machines: the one network with a route out.
    for (const name of ['gateway-1', 'gateway-2', 'guacd'])
      expect(services[name]?.networks, name).toEqual(['backend', 'desktops']);
    for (const name of ['nats-1', 'gateway-1']) {
      const { unit } = await unitFor(name);
      expect(values(unit, 'Container', 'Network'), name).not.toContain('oc-edge.network');
      expect(values(unit, 'Container', 'Network'), name).toContain('oc-backend.network');
    }
    const edge = networks.edge?.ipam?.config?.[0]?.subnet;
    expect(services['bridge-1']?.environment?.OC_TRUSTED_PROXIES).toBe(edge);
    expect(environment((await unitFor('bridge-1')).unit).OC_TRUSTED_PROXIES).toBe(edge);
  });

  it('give every bridge every NATS node and pool member, and Caddy every bridge', async () => {
    const { services } = await compose();
    const nats = Object.keys(services).filter((s) => s.startsWith('nats-'));
    const gateways = Object.keys(services).filter((s) => s.startsWith('gateway-'));
    const bridges = Object.keys(services).filter((s) => s.startsWith('bridge-'));
    for (const bridge of bridges) {
      const env = services[bridge]?.environment ?? {};
      expect(env.OC_NATS_URL?.split(','), bridge).toEqual(nats.map((n) => `nats://${n}:4222`));
      expect(env.OC_GATEWAYS?.split(','), bridge).toEqual([
        ...gateways.map((g) => `gateways://${g}:4822`),
        'guacds://guacd:4822',
      ]);
      // The pool has guacd: no --guacd beside it (serve refuses both).
      expect(services[bridge]?.command).not.toContain('--guacd');
    }
    expect(values((await unitFor('bridge-1')).unit, 'Container', 'Exec')[0]).not.toContain(
      '--guacd',
    );
    expect(services.caddy?.environment?.OC_BRIDGE_UPSTREAM?.split(' ')).toEqual(
      bridges.map((b) => `${b}:8080`),
    );
  });

  it('take every secret from Podman secrets, the same ones in both', async () => {
    const { services, secrets } = await compose();
    for (const secret of Object.values(secrets)) expect(secret.external).toBe(true);
    const asQuadlet = (s: Service['secrets']) =>
      (s ?? [])
        .map((x) =>
          typeof x === 'string'
            ? x
            : `${x.source}${x.type === 'env' ? ',type=env' : ''},target=${x.target ?? ''}`,
        )
        .sort();
    for (const name of ['bridge-1', 'gateway-1', 'nats-1']) {
      const { unit } = await unitFor(name);
      expect(values(unit, 'Container', 'Secret').sort(), name).toEqual(
        asQuadlet(services[name]?.secrets),
      );
    }
    const bridgeSecrets = asQuadlet(services['bridge-1']?.secrets).join();
    for (const target of ['DATABASE_URL', 'OC_NATS_TOKEN', 'OC_GATEWAY_SECRET', 'OC_SECRET_KEY'])
      expect(bridgeSecrets).toContain(`target=${target}`);
    for (const file of [
      'compose.yaml',
      'nats.conf',
      ...(await readdir(join(site, 'quadlet'))).map((n) => `quadlet/${n}`),
    ]) {
      const text = (await readFile(join(site, file), 'utf8')).replace(/^\s*#.*$/gm, '');
      expect(text, file).not.toMatch(/(PASSWORD|SECRET|TOKEN)[A-Z_]*\s*[:=]\s*[^\s/$][^\s]*/);
      expect(text, file).not.toMatch(/password:\s*"[^"<]/);
    }
  });

  it('Caddy spreads over the three bridges by least connections, leaving a dead one out', async () => {
    const { services } = await compose();
    const { stdout } = await run(
      'caddy',
      ['adapt', '--config', join(here, 'Caddyfile'), '--adapter', 'caddyfile'],
      {
        env: {
          ...process.env,
          OC_DOMAIN: 'desk.example.test',
          OC_ACME_EMAIL: 'ops@example.test',
          OC_BRIDGE_UPSTREAM: services.caddy!.environment!.OC_BRIDGE_UPSTREAM!,
        },
      },
    );
    const proxy = JSON.stringify(JSON.parse(stdout)).match(
      /\{"flush_interval[^]*?"upstreams":\[[^\]]*\]\}/,
    )?.[0];
    const handler = JSON.parse(proxy ?? '{}') as {
      upstreams?: { dial: string }[];
      load_balancing?: { selection_policy?: { policy?: string }; try_duration?: number };
      health_checks?: { passive?: { fail_duration?: number } };
    };
    expect(handler.upstreams?.map((u) => u.dial)).toEqual([
      'bridge-1:8080',
      'bridge-2:8080',
      'bridge-3:8080',
    ]);
    expect(handler.load_balancing?.selection_policy?.policy).toBe('least_conn');
    expect(handler.load_balancing?.try_duration).toBeGreaterThan(0);
    expect(handler.health_checks?.passive?.fail_duration).toBeGreaterThan(0);
  });
});

describe('the site: a three-node NATS cluster from nats.conf', () => {
  const dirs: string[] = [];
  const servers: ChildProcess[] = [];
  afterAll(async () => {
    for (const server of servers) {
      if (server.exitCode !== null) continue;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('passes nats-server -t, and three nodes form a cluster that keeps a bucket on each', async () => {
    const token = 'a'.repeat(32);
    const route = 'b'.repeat(24);
    const nodes = await Promise.all(
      [1, 2, 3].map(async () => ({ client: await freePort(), route: await freePort() })),
    );
    const text = await readFile(join(site, 'nats.conf'), 'utf8');
    for (const [i, node] of nodes.entries()) {
      const dir = await mkdtemp(join(tmpdir(), `oc-site-nats-${String(i + 1)}-`));
      dirs.push(dir);
      // The file as shipped, with this machine's ports and store in place of the container's.
      await writeFile(
        join(dir, 'nats.conf'),
        text
          .replace('listen: 0.0.0.0:4222', `listen: 127.0.0.1:${String(node.client)}`)
          .replace('listen: 0.0.0.0:6222', `listen: 127.0.0.1:${String(node.route)}`)
          .replace('http: 127.0.0.1:8222', '')
          .replace('store_dir: /data', `store_dir: ${join(dir, 'js')}`),
      );
      // cluster.conf as the compose header's recipe writes it.
      await writeFile(
        join(dir, 'cluster.conf'),
        `authorization { user: route, password: "${route}" }\nroutes: [ ${nodes.map((n) => `"nats://route:${route}@127.0.0.1:${String(n.route)}"`).join(', ')} ]\n`,
      );
      const env = { ...process.env, NATS_NAME: `nats-${String(i + 1)}`, NATS_TOKEN: token };
      // -t exits non-zero (and execFileSync throws) on any error in the file.
      execFileSync('nats-server', ['-t', '-c', join(dir, 'nats.conf')], { env, stdio: 'ignore' });
      servers.push(spawn('nats-server', ['-c', join(dir, 'nats.conf')], { env, stdio: 'ignore' }));
    }
    // Without the token: refused.
    await expect(
      connect({
        servers: `127.0.0.1:${String(nodes[0]!.client)}`,
        timeout: 2_000,
        reconnect: false,
      }),
    ).rejects.toThrow(/Authorization/i);
    const nc = await connect({
      servers: nodes.map((n) => `127.0.0.1:${String(n.client)}`),
      token,
      timeout: 5_000,
    });
    try {
      // JetStream needs the cluster's meta leader: retried while the three elect one.
      let kv;
      for (let tries = 0; ; tries++) {
        try {
          kv = await nc.jetstream().views.kv('site_test', { replicas: 3, history: 1 });
          break;
        } catch (err) {
          if (tries > 100) throw err;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      await kv.put('k', new TextEncoder().encode('v'));
      const status = await kv.status();
      expect(status.streamInfo.cluster?.replicas?.length).toBe(2);
      expect(new TextDecoder().decode((await kv.get('k'))?.value)).toBe('v');
    } finally {
      await nc.close();
    }
  }, 60_000);
});

describe("the site: TLS on the gateway pool's links", () => {
  const secretFile = (name: string) => `/run/secrets/${name}`;

  it('mounts the pool certificates where the bridges, gateways and guacd read them', async () => {
    const { services } = await compose();
    const names = (s: Service['secrets']) =>
      (s ?? []).map((x) => (typeof x === 'string' ? x : x.source));
    for (const name of Object.keys(services).filter((s) => s.startsWith('bridge-'))) {
      const env = services[name]?.environment ?? {};
      expect(env.OC_POOL_CA, name).toBe(secretFile('oc_pool_ca'));
      expect(env.OC_POOL_CLIENT_CERT, name).toBe(secretFile('oc_pool_client_cert'));
      expect(env.OC_POOL_CLIENT_KEY, name).toBe(secretFile('oc_pool_client_key'));
      expect(names(services[name]?.secrets), name).toEqual(
        expect.arrayContaining(['oc_pool_ca', 'oc_pool_client_cert', 'oc_pool_client_key']),
      );
    }
    for (const name of Object.keys(services).filter((s) => s.startsWith('gateway-'))) {
      const env = services[name]?.environment ?? {};
      expect(env.OC_GATEWAY_TLS_CERT, name).toBe(secretFile('oc_pool_server_cert'));
      expect(env.OC_GATEWAY_TLS_KEY, name).toBe(secretFile('oc_pool_server_key'));
      // Mutual TLS: only the bridges' certificate gets past TLS.
      expect(env.OC_GATEWAY_TLS_CLIENT_CA, name).toBe(secretFile('oc_pool_ca'));
    }
    const guacd = services.guacd!;
    expect(guacd.command).toEqual([
      '-C',
      secretFile('oc_pool_server_cert'),
      '-K',
      secretFile('oc_pool_server_key'),
    ]);
    expect(names(guacd.secrets)).toEqual(['oc_pool_server_cert', 'oc_pool_server_key']);
    // The quadlets say the same.
    const bridge = environment((await unitFor('bridge-1')).unit);
    expect(bridge.OC_POOL_CA).toBe(secretFile('oc_pool_ca'));
    expect(bridge.OC_POOL_CLIENT_CERT).toBe(secretFile('oc_pool_client_cert'));
    const gateway = environment((await unitFor('gateway-1')).unit);
    expect(gateway.OC_GATEWAY_TLS_CLIENT_CA).toBe(secretFile('oc_pool_ca'));
    const dropIn = parseUnitFile(await readFile(join(site, 'guacd-pool-tls.conf'), 'utf8'));
    expect(values(dropIn, 'Container', 'Exec')).toEqual([guacd.command!.join(' ')]);
  });

  it("pool-pki.sh makes a CA, a server certificate for every member and the bridges' one", async () => {
    // A FAKE podman (this machine has none): `secret exists|create NAME FILE` on a directory.
    const dir = await mkdtemp(join(tmpdir(), 'oc-pool-pki-'));
    try {
      const store = join(dir, 'secrets');
      await run('mkdir', [store, join(dir, 'bin')]);
      await writeFile(
        join(dir, 'bin', 'podman'),
        `#!/bin/sh\ncase "$2" in exists) [ -f "${store}/$3" ];; create) cp "$4" "${store}/$3";; *) exit 2;; esac\n`,
        { mode: 0o755 },
      );
      const env = { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}` };
      await run('sh', [join(site, 'pool-pki.sh'), '2'], { env, cwd: dir });
      const made = (await readdir(store)).sort();
      expect(made).toEqual([
        'oc_pool_ca',
        'oc_pool_client_cert',
        'oc_pool_client_key',
        'oc_pool_server_cert',
        'oc_pool_server_key',
      ]);
      const at = (name: string) => join(store, name);
      const { stdout } = await run('openssl', [
        'verify',
        '-CAfile',
        at('oc_pool_ca'),
        at('oc_pool_server_cert'),
        at('oc_pool_client_cert'),
      ]);
      expect(stdout.match(/: OK/g)).toHaveLength(2);
      const san = await run('openssl', [
        'x509',
        '-in',
        at('oc_pool_server_cert'),
        '-noout',
        '-ext',
        'subjectAltName',
      ]);
      expect(san.stdout).toContain('DNS:guacd, DNS:gateway-1, DNS:gateway-2');
      // A second run keeps what exists (the certificates every member already holds).
      const before = await readFile(at('oc_pool_ca'));
      await run('sh', [join(site, 'pool-pki.sh'), '2'], { env, cwd: dir });
      expect(await readFile(at('oc_pool_ca'))).toEqual(before);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

const tf = tofuTool();

describe.skipIf(tf === undefined)('the site: the OpenTofu stack module with counts', () => {
  it('renders 3 bridges, 2 gateways and 3 NATS nodes: template units, instances, drop-ins', async () => {
    {
      const rendered = await renderStack<{
        files: Record<string, string>;
        install: string;
        services: string[];
      }>(
        tf!,
        [
          'host=203.0.113.7',
          'domain=desk.example.test',
          'acme_email=ops@example.test',
          'rdp_password=rdp-Pass-7f3e9a1c',
          'bridges=3',
          'gateways=2',
          'nats_nodes=3',
        ],
        'nonsensitive(jsonencode({ files = local.files, install = local.install_script, services = local.services }))',
      );
      const systemd = '.config/containers/systemd/';
      const names = Object.keys(rendered.files);
      for (const unit of ['oc-bridge@.container', 'oc-gateway@.container', 'oc-nats@.container'])
        expect(names).toContain(`${systemd}${unit}`);
      expect(names).not.toContain(`${systemd}oc-bridge.container`);
      expect(names).toContain('.config/overlay-companion/nats.conf');
      expect(rendered.services).toEqual([
        'caddy',
        'bridge@1',
        'bridge@2',
        'bridge@3',
        'gateway@1',
        'gateway@2',
        'nats@1',
        'nats@2',
        'nats@3',
        'guacd',
        'postgres',
        'desktop',
      ]);
      const bridge = parseUnitFile(
        rendered.files[`${systemd}oc-bridge@.container.d/10-site.conf`]!,
      );
      expect(values(bridge, 'Container', 'Exec')[0]).not.toContain('--guacd');
      expect(environment(bridge).OC_GATEWAYS).toBe(
        'gateways://gateway-1:4822,gateways://gateway-2:4822,guacds://guacd:4822',
      );
      const guacdTls = parseUnitFile(
        rendered.files[`${systemd}oc-guacd.container.d/30-pool-tls.conf`]!,
      );
      expect(values(guacdTls, 'Container', 'Exec')[0]).toMatch(/^-C \S+ -K \S+$/);
      expect(names).toContain('.config/overlay-companion/pool-pki.sh');
      expect(rendered.install).toContain('overlay-companion/pool-pki.sh" 2');
      expect(environment(bridge).OC_NATS_URL).toBe(
        'nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222',
      );
      const caddy = parseUnitFile(rendered.files[`${systemd}oc-caddy.container.d/10-site.conf`]!);
      expect(values(caddy, 'Container', 'Environment')).toContain(
        '"OC_BRIDGE_UPSTREAM=bridge-1:8080 bridge-2:8080 bridge-3:8080"',
      );
      expect(values(caddy, 'Unit', 'Requires')).toEqual([
        '',
        'oc-bridge@1.service oc-bridge@2.service oc-bridge@3.service',
      ]);
      for (const path of names.filter((n) => n.startsWith(systemd)))
        parseUnitFile(rendered.files[path]!, path);
      for (const kind of ['bridge@', 'gateway@', 'nats@'])
        expect(names).toContain(`${systemd}oc-${kind}.container.d/20-limits.conf`);
      expect(rendered.install).toContain('nats://route:%s@nats-3:6222');
      expect(rendered.install).toContain('http://127.0.0.1:8081/healthz');
      await run('sh', ['-n', '-c', rendered.install]);
    }
  }, 120_000);
});
