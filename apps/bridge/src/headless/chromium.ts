// Which Chromium the headless viewer runs and how: Debian's /usr/bin/chromium unless
// OC_CHROMIUM names another, with the flags that keep it quiet on a closed network (no sync,
// no component updates, no QUIC probes) and working as root without a sandbox.
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_FLAGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env.OC_CHROMIUM?.trim();
  return chosen === undefined || chosen === '' ? DEFAULT_CHROMIUM : chosen;
}
