// Debian's Chromium with the flags that keep it quiet on a closed network (never a download):
// the same choice the bridge's headless viewer makes.
import { CHROMIUM_FLAGS, chromiumPath } from '../apps/bridge/src/headless/chromium.js';

export const CHROMIUM_PATH = chromiumPath();
export const CHROMIUM_ARGS = [...CHROMIUM_FLAGS];
