// `overlay-companion gateway`: the embedded guacd-compatible VNC gateway on its own, as a
// drop-in for guacd's VNC support (e.g. for another Guacamole web application). Like guacd, it
// trusts whoever connects to its TCP port: they choose the VNC server and join running
// connections by id. That is the operator's choice (firewall, loopback, a private network),
// so it is said at every start; `serve` does not use this command's TCP listener. With
// OC_GATEWAY_SECRET it is a member of the bridges' gateway pool instead: it serves only clients
// that send the secret first (the bridges; gateway's poolAuth.ts). With --tls-cert/--tls-key it
// serves TLS (the secret, passwords and pictures then cross the network encrypted), and with
// --tls-client-ca only clients holding a certificate that CA signed (mutual TLS). Renewed TLS
// files are taken up without a restart (the gateway's tlsFiles.ts polls them): links opened after
// use them, open links keep theirs, and files that are not usable leave the old ones in force,
// with the reason in the log.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import {
  TLS_FILE_POLL_MS,
  startGateway,
  watchTlsFiles,
  type GatewayTls,
} from '@overlay-companion/gateway';
import { StartupError, errorMessage } from '../errors.js';
import type { GatewayCommandOptions } from './args.js';

export async function runGateway(
  options: GatewayCommandOptions,
  logger: Logger,
  /** How often the TLS files are looked at for a renewal (tests make it quick). */
  tlsPollMs: number = TLS_FILE_POLL_MS,
): Promise<{ host: string; port: number; stop(): Promise<void> }> {
  const tls = options.tls === undefined ? undefined : await readTls(options.tls);
  try {
    const gateway = await startGateway({
      host: options.listen.host,
      port: options.listen.port,
      ...(options.poolSecret === undefined ? {} : { poolSecret: options.poolSecret }),
      ...(tls === undefined ? {} : { tls }),
      logger,
    });
    const where = { host: gateway.host, port: gateway.port };
    if (tls?.clientCa !== undefined)
      logger.info(
        where,
        options.poolSecret === undefined
          ? 'serving mutual TLS: only clients with a certificate signed by --tls-client-ca connect'
          : 'serving the bridges of a gateway pool only (OC_GATEWAY_SECRET), over mutual TLS',
      );
    else if (tls !== undefined && options.poolSecret !== undefined)
      logger.info(
        where,
        "serving the bridges of a gateway pool only (OC_GATEWAY_SECRET), over TLS (--tls-client-ca would also require the bridges' certificates)",
      );
    else if (options.poolSecret === undefined)
      logger.warn(
        { host: gateway.host, port: gateway.port },
        'whoever can connect to this port can reach every VNC desktop this machine can reach, and join running connections by id: keep it reachable only by the Guacamole web application',
      );
    else
      logger.info(
        { host: gateway.host, port: gateway.port },
        'serving the bridges of a gateway pool only (OC_GATEWAY_SECRET); the secret and the desktops pass in the clear: keep the port on a private network, or serve TLS (--tls-cert, --tls-key)',
      );
    const files = options.tls;
    const renewals =
      files === undefined
        ? undefined
        : watchTlsFiles(
            [files.certFile, files.keyFile, files.clientCaFile].filter((f) => f !== undefined),
            async () => {
              try {
                gateway.reloadTls(await readTls(files));
                logger.info('TLS files changed: links opened from now on use the new certificate');
              } catch (err) {
                logger.warn(
                  { reason: (err as NodeJS.ErrnoException).code ?? errorMessage(err) },
                  'TLS files changed but are not usable (a certificate and its key that do not match, or not PEM): still serving the previous certificate',
                );
              }
            },
            tlsPollMs,
          );
    return {
      host: gateway.host,
      port: gateway.port,
      stop: () => {
        renewals?.close();
        return gateway.close();
      },
    };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StartupError(
      code === 'EADDRINUSE'
        ? `${options.listen.host}:${options.listen.port} is already in use (is guacd running?). Pick another with --listen HOST:PORT.`
        : `The gateway could not start on ${options.listen.host}:${options.listen.port}: ${errorMessage(err)}`,
    );
  }
}

async function readTls(files: NonNullable<GatewayCommandOptions['tls']>): Promise<GatewayTls> {
  const read = (flag: string, file: string) =>
    readFile(file).catch((err: unknown) => {
      throw new StartupError(
        `${flag} ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}): give a PEM file this user can read.`,
      );
    });
  const [cert, key, clientCa] = await Promise.all([
    read('--tls-cert', files.certFile),
    read('--tls-key', files.keyFile),
    files.clientCaFile === undefined ? undefined : read('--tls-client-ca', files.clientCaFile),
  ]);
  return { cert, key, ...(clientCa === undefined ? {} : { clientCa }) };
}
