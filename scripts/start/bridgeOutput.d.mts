// Types of bridgeOutput.mjs (plain JavaScript, since npm start runs before dependencies exist).
import type { ChildProcess } from 'node:child_process';

export function readableLogLine(
  line: string,
):
  | { readable: string; passThrough?: undefined }
  | { passThrough: string; readable?: undefined }
  | undefined;

export function relayBridgeOutput(
  child: ChildProcess,
  options: {
    logFile: string;
    onBanner: (lines: string[]) => string[];
    out?: NodeJS.WritableStream;
    err?: NodeJS.WritableStream;
  },
): { partialBanner(): string[] };
