// @overlay-companion/bridge — the Hono bridge: HTTP app, Guacamole WebSocket tunnel, and the
// pieces the CLI and the control plane build on.
export { createApp, type AppDeps } from './app.js';
export { startBridge, type BridgeExtras, type RunningBridge } from './server.js';
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
