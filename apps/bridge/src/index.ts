// @overlay-companion/bridge — the Hono bridge: HTTP app, Guacamole WebSocket tunnel, and the
// pieces the CLI and the desktop control build on.
export { createApp, type AppDeps } from './app.js';
export { startBridge, type BridgeExtras, type RunningBridge } from './bridge.js';
export {
  bridgeConfigSchema,
  parseBridgeConfig,
  parseHostPort,
  type BridgeConfig,
  type BridgeConfigInput,
  type ConnectionConfig,
  type HostPort,
} from './config.js';
export { ConfigError, StartupError, UsageError } from './errors.js';
export { UpgradeRouter, rejectUpgrade, type UpgradeHandler } from './http/upgradeRouter.js';
export { TunnelRegistry, type TunnelInfo } from './tunnel/registry.js';
export { closeCodeFor, closeReasonFor, statusFromClose } from './tunnel/closeStatus.js';
// What @overlay-companion/testing (the Playwright fixtures) starts: `serve` in-process.
export { runServe, type ServeHandle } from './cli/serve.js';
export type { ServeOptions } from './cli/args.js';
export { loggerOptions } from './logger.js';
