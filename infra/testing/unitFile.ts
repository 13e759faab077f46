// Reads systemd unit files as Quadlet does: [Section] headers, Key=Value lines (a key may repeat,
// as Network= or Environment= do), comments (# and ;) and backslash line continuations. No npm INI
// parser keeps repeated keys, which quadlets rely on.

export type UnitFile = Map<string, Array<[key: string, value: string]>>;

export function parseUnitFile(text: string, name = 'unit'): UnitFile {
  const sections: UnitFile = new Map();
  let current: Array<[string, string]> | undefined;
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const header = /^\[([A-Za-z]+)\]$/.exec(line);
    if (header) {
      current = sections.get(header[1]!) ?? [];
      sections.set(header[1]!, current);
      return;
    }
    const entry = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(line);
    if (!entry || current === undefined) {
      throw new Error(`${name}:${index + 1}: not a section header or Key=Value line: ${line}`);
    }
    current.push([entry[1]!, entry[2]!]);
  });
  return sections;
}

/** Every value of `key` in `section`, in order. */
export function values(unit: UnitFile, section: string, key: string): string[] {
  return (unit.get(section) ?? []).filter(([k]) => k === key).map(([, v]) => v);
}

/** `Environment=NAME=value` lines of a [Container] section as a record (later lines win). */
export function environment(unit: UnitFile): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of values(unit, 'Container', 'Environment')) {
    const at = line.indexOf('=');
    env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}
