#!/usr/bin/env node
// Entry point of the `overlay-companion` command: parses the command line, starts what the
// command needs, prints where to find it, and on SIGINT/SIGTERM/SIGHUP stops everything it
// started and exits 0 — also when nobody reads its output any more (terminal closed, parent
// gone), since writing there then fails. Usage mistakes exit 2 with the usage text; failures to
// start exit 1.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describeGuacd } from '../config.js';
import { ConfigError, UsageError, errorMessage } from '../errors.js';
import { createLogger } from '../logger.js';
import { BRIDGE_VERSION } from '../version.js';
import { parseCommandLine, type Command } from './args.js';
import { runGateway } from './gatewayCommand.js';
import { serveBanner } from './serveBanner.js';
import { runServe } from './serve.js';
import { runStdio } from '../stdio/command.js';
import { USAGE } from './usage.js';

const out = (text: string) => process.stdout.write(`${text}\n`);
const err = (text: string) => process.stderr.write(`${text}\n`);

// What we print is for a person; once nobody reads it (EPIPE, EIO) it is dropped. Left unhandled,
// the failed write would crash the process in the middle of stopping the desktop and leave
// Xvnc running.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

async function main(argv: readonly string[]): Promise<void> {
  let command: Command;
  try {
    command = parseCommandLine(argv, process.env);
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      err(`overlay-companion: ${e.message}\n\n${USAGE}`);
      process.exit(2);
    }
    throw e;
  }

  switch (command.command) {
    case 'help':
      out(USAGE);
      return;
    case 'version':
      out(BRIDGE_VERSION);
      return;
    case 'serve': {
      const logger = createLogger('bridge', command.options.logLevel);
      const handle = await runServe(command.options, logger);
      stopOnSignal(() => handle.stop());
      const { bridge, source, guacd, embeddedGateway } = handle;
      out('Overlay Companion is running.');
      out(`  Desktop: ${source.description}`);
      out(
        `  guacd:   ${embeddedGateway ? 'embedded gateway (in-process, Unix socket)' : 'guacd'} on ${describeGuacd(guacd)}`,
      );
      if (!existsSync(join(bridge.config.webRoot, 'index.html'))) {
        out(
          `  Note:    the viewer is not built (${bridge.config.webRoot}); run \`npm run build\`.`,
        );
      }
      out(`  Open:    ${bridge.url}`);
      if (handle.headlessViewer !== undefined) {
        out(`  Headless viewer: Chromium on ${handle.headlessViewer.url}`);
      }
      out(
        serveBanner({
          bridge,
          firstRun: handle.firstRun,
          envToken: command.options.mcpToken !== undefined,
          oidc: command.options.oidc !== undefined,
        }),
      );
      out('Press Ctrl-C to stop.');
      return;
    }
    case 'stdio': {
      // stdout carries the MCP client's JSON-RPC stream: only stderr for the person here.
      const proxy = await runStdio(command.options, process.env, (line) =>
        err(`overlay-companion stdio: ${line}`),
      );
      const finish = (): void => void proxy.close().then(() => process.exit(0));
      process.on('SIGINT', finish);
      process.on('SIGTERM', finish);
      await proxy.closed;
      process.exit(0);
      return;
    }
    case 'gateway': {
      const logger = createLogger('gateway', command.options.logLevel);
      const gateway = await runGateway(command.options, logger);
      stopOnSignal(() => gateway.stop());
      out(
        `Gateway (guacd-compatible, VNC) listening on ${gateway.host}:${gateway.port}. Press Ctrl-C to stop.`,
      );
      return;
    }
  }
}

/** First signal: stop everything and exit 0. A second one while stopping: exit 1 at once. */
function stopOnSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      err(`Received ${signal} again; exiting without waiting.`);
      process.exit(1);
    }
    stopping = true;
    err(`Received ${signal}; stopping...`);
    stop().then(
      () => process.exit(0),
      (e: unknown) => {
        err(`overlay-companion: stopping failed: ${errorMessage(e)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal); // the terminal closed
  // A crash must still take the desktop down, or Xvnc would outlive us.
  process.on('uncaughtException', (e) => {
    err(`overlay-companion: unexpected error: ${e.stack ?? e.message}`);
    if (stopping) process.exit(1);
    stopping = true;
    void stop().finally(() => process.exit(1));
  });
}

main(process.argv.slice(2)).catch((e: unknown) => {
  err(`overlay-companion: ${errorMessage(e)}`);
  process.exit(1);
});
