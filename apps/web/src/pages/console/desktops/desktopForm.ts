// The desktop form's state as text fields, and the requests it makes: which parameters each kind
// has (the rest are never sent), numbers from text, the write-only password (empty keeps the
// stored one, "clear" removes it), and the schemas' issues under the field they are about.
import {
  CreateDesktopRequest,
  DesktopParams,
  UpdateDesktopRequest,
  desktopParamsIssues,
  type DesktopKind,
  type DesktopView,
} from '@overlay-companion/protocol';

export interface DesktopFields {
  name: string;
  kind: DesktopKind;
  host: string;
  port: string;
  username: string;
  domain: string;
  security: '' | 'any' | 'nla' | 'tls' | 'rdp';
  keyboard: string;
  readOnly: boolean;
  width: string;
  height: string;
  idleStopMinutes: string;
  /** Write-only: empty keeps what is stored. */
  password: string;
  clearPassword: boolean;
}

export const KIND_LABELS: Readonly<Record<DesktopKind, string>> = {
  local: 'Local desktop (started on this machine)',
  vnc: 'VNC server',
  'guacd-vnc': 'VNC through guacd',
  'guacd-rdp': 'RDP through guacd',
};

export const DEFAULT_PORTS: Readonly<Record<DesktopKind, string>> = {
  local: '',
  vnc: '5900',
  'guacd-vnc': '5900',
  'guacd-rdp': '3389',
};

export const LABELS: Readonly<Record<string, string>> = {
  name: 'Name',
  kind: 'Kind',
  host: 'Host',
  port: 'Port',
  username: 'Username',
  domain: 'Domain',
  security: 'Security',
  keyboard: 'Keyboard layout',
  read_only: 'View only',
  width: 'Width',
  height: 'Height',
  idle_stop_minutes: 'Stop after idle (minutes)',
  password: 'Password',
  owner_id: 'Owner',
};

export function emptyFields(kind: DesktopKind = 'guacd-rdp'): DesktopFields {
  return {
    name: '',
    kind,
    host: '',
    port: DEFAULT_PORTS[kind],
    username: '',
    domain: '',
    security: '',
    keyboard: '',
    readOnly: false,
    width: '',
    height: '',
    idleStopMinutes: '',
    password: '',
    clearPassword: false,
  };
}

export function fieldsOf(desktop: DesktopView): DesktopFields {
  const p = desktop.params;
  const text = (value: number | string | undefined) => (value === undefined ? '' : String(value));
  return {
    name: desktop.name,
    kind: desktop.kind,
    host: text(p.host),
    port: text(p.port),
    username: text(p.username),
    domain: text(p.domain),
    security: p.security ?? '',
    keyboard: text(p.keyboard),
    readOnly: p.read_only ?? false,
    width: text(p.width),
    height: text(p.height),
    idleStopMinutes: text(p.idle_stop_minutes),
    password: '',
    clearPassword: false,
  };
}

/** Which parameters the form shows for a kind. */
export function shows(kind: DesktopKind) {
  const remote = kind !== 'local';
  return {
    host: remote,
    port: remote,
    username: remote,
    password: remote,
    rdp: kind === 'guacd-rdp',
    idleStop: kind === 'local',
  };
}

const numberOrText = (text: string): number | string | undefined => {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const value = Number(trimmed);
  // Left as text when not a number, so the schema says what is wrong with it.
  return Number.isFinite(value) ? value : trimmed;
};

/** The parameters the kind has, without empty fields (unparsed: the schemas check them). */
export function paramsOf(fields: DesktopFields): Record<string, unknown> {
  const show = shows(fields.kind);
  const params: Record<string, unknown> = {
    host: show.host ? fields.host.trim() || undefined : undefined,
    port: show.port ? numberOrText(fields.port) : undefined,
    username: show.username ? fields.username || undefined : undefined,
    domain: show.rdp ? fields.domain || undefined : undefined,
    security: show.rdp ? fields.security || undefined : undefined,
    keyboard: show.rdp ? fields.keyboard || undefined : undefined,
    read_only: fields.readOnly ? true : undefined,
    width: numberOrText(fields.width),
    height: numberOrText(fields.height),
    idle_stop_minutes: show.idleStop ? numberOrText(fields.idleStopMinutes) : undefined,
  };
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
}

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** Issues by form field: params.port → port, secrets.password → password. */
export function issuesByField(issues: readonly Issue[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const path = issue.path.map(String);
    const field = (path[0] === 'params' || path[0] === 'secrets' ? path[1] : path[0]) ?? 'name';
    if (fields[field] !== undefined) continue;
    fields[field] = `${LABELS[field] ?? field} ${issue.message}.`;
  }
  return fields;
}

export type Built<T> = { ok: true; body: T } | { ok: false; fields: Record<string, string> };

export function createRequest(
  fields: DesktopFields,
  ownerId?: string,
): Built<CreateDesktopRequest> {
  const show = shows(fields.kind);
  const parsed = CreateDesktopRequest.safeParse({
    name: fields.name,
    kind: fields.kind,
    params: paramsOf(fields),
    ...(show.password && fields.password !== '' ? { secrets: { password: fields.password } } : {}),
    ...(ownerId === undefined || ownerId === '' ? {} : { owner_id: ownerId }),
  });
  return parsed.success
    ? { ok: true, body: parsed.data }
    : { ok: false, fields: issuesByField(parsed.error.issues) };
}

/** Only what the form changes: parameters always (they replace the stored ones), the password only when typed or cleared. */
export function updateRequest(
  fields: DesktopFields,
  desktop: DesktopView,
): Built<UpdateDesktopRequest> {
  const show = shows(desktop.kind);
  const password = !show.password
    ? undefined
    : fields.clearPassword
      ? ''
      : fields.password === ''
        ? undefined
        : fields.password;
  const parsed = UpdateDesktopRequest.safeParse({
    ...(fields.name.trim() === desktop.name ? {} : { name: fields.name }),
    params: paramsOf({ ...fields, kind: desktop.kind }),
    ...(password === undefined ? {} : { secrets: { password } }),
  });
  if (!parsed.success) return { ok: false, fields: issuesByField(parsed.error.issues) };
  const params = DesktopParams.parse(parsed.data.params ?? {});
  const kindIssues = desktopParamsIssues(desktop.kind, params, parsed.data.secrets);
  if (kindIssues.length > 0) return { ok: false, fields: issuesByField(kindIssues) };
  return { ok: true, body: parsed.data };
}

/** "rdp.example:3389", or "This machine" for a local desktop. */
export function whereOf(desktop: Pick<DesktopView, 'kind' | 'params'>): string {
  if (desktop.kind === 'local') return 'This machine';
  const host = desktop.params.host ?? '';
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return desktop.params.port === undefined ? shown : `${shown}:${desktop.params.port}`;
}
