// Debian's Chromium with the flags that keep it quiet on a closed network (never a download).
export const CHROMIUM_PATH = process.env.OC_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
