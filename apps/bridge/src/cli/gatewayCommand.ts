// `overlay-companion gateway`: the embedded guacd-compatible VNC gateway on its own, as a
// drop-in for guacd's VNC support (e.g. for another Guacamole web application).
import type { Logger } from 'pino';
import { startGateway } from '@overlay-companion/gateway';
import { StartupError, errorMessage } from '../errors.js';
import type { GatewayCommandOptions } from './args.js';

export async function runGateway(
  options: GatewayCommandOptions,
  logger: Logger,
): Promise<{ host: string; port: number; stop(): Promise<void> }> {
  try {
    const gateway = await startGateway({
      host: options.listen.host,
      port: options.listen.port,
      logger,
    });
    return { host: gateway.host, port: gateway.port, stop: () => gateway.close() };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StartupError(
      code === 'EADDRINUSE'
        ? `${options.listen.host}:${options.listen.port} is already in use (is guacd running?). Pick another with --listen HOST:PORT.`
        : `The gateway could not start on ${options.listen.host}:${options.listen.port}: ${errorMessage(err)}`,
    );
  }
}
