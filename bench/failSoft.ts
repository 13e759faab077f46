// How one part of the MCP bench fails without ending the others: a part that throws becomes
// `{ failed }` in the results (with its error, so the JSON says why) and one line in the log.
// `ok` reads such a result back as the value or undefined.

/** A part that could not be measured, and why (e.g. a tool the viewer does not run yet). */
export interface Failed {
  failed: string;
}

/** Runs `run`; on a throw logs "`label` FAILED: <first line>" and returns `{ failed }`. */
export async function attempt<T>(
  label: string,
  log: (line: string) => void,
  run: () => Promise<T>,
): Promise<T | Failed> {
  try {
    return await run();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log(`${label} FAILED: ${message.split('\n')[0] ?? ''}`);
    return { failed: message.slice(0, 1000) };
  }
}

export const ok = <T extends object>(value: T | Failed): T | undefined =>
  'failed' in value ? undefined : value;
