// Desktops as records (/api/desktops), like Apache Guacamole connections: a name, a kind,
// non-secret connection parameters, write-only credentials, one owner and grants to people.
// What the person sees of one (DesktopView) never holds a credential: `has_password` only.
import { z } from 'zod';
import { EpochMs } from '../common.js';
import { ApiId, PrintableName } from './common.js';

/**
 * local: a sandboxed Xvnc desktop the bridge starts on demand; vnc: a VNC server through our
 * embedded gateway; guacd-vnc / guacd-rdp: through Apache guacd (serve --guacd).
 */
export const DESKTOP_KINDS = ['local', 'vnc', 'guacd-vnc', 'guacd-rdp'] as const;
export const DesktopKind = z.enum(DESKTOP_KINDS);
export type DesktopKind = z.infer<typeof DesktopKind>;

export const GrantLevel = z.enum(['view', 'control']);
export type GrantLevel = z.infer<typeof GrantLevel>;

/**
 * guacd 1.6's RDP keyboard layouts (its `server-layout` values). guacd turns keysyms into that
 * layout's scancodes (and dead-key sequences), and xrdp gives the session the same X layout.
 * Characters outside the layout go as RDP Unicode events, which xrdp 0.9 drops unless its own
 * keymap has them: with the default en-us-qwerty an `ä` never arrives; a layout that has it
 * (e.g. de-de-qwertz) delivers it.
 */
export const RDP_KEYBOARDS = [
  'cs-cz-qwertz',
  'da-dk-qwerty',
  'de-ch-qwertz',
  'de-de-qwertz',
  'en-gb-qwerty',
  'en-us-qwerty',
  'es-es-qwerty',
  'es-latam-qwerty',
  'failsafe',
  'fr-be-azerty',
  'fr-ca-qwerty',
  'fr-ch-qwertz',
  'fr-fr-azerty',
  'hu-hu-qwertz',
  'it-it-qwerty',
  'ja-jp-qwerty',
  'no-no-qwerty',
  'pl-pl-qwerty',
  'pt-br-qwerty',
  'pt-pt-qwerty',
  'ro-ro-qwerty',
  'sv-se-qwerty',
  'tr-tr-qwerty',
] as const;
export type RdpKeyboard = (typeof RDP_KEYBOARDS)[number];

/** The smallest and largest fixed desktop size a record may ask for (pixels per side). */
export const MIN_DESKTOP_SIDE = 64;
export const MAX_DESKTOP_SIDE = 8192;

/** A host name, IPv4 or IPv6 address (brackets and a zone allowed): no spaces, no URL parts. */
const Host = z
  .string()
  .trim()
  .min(1, { error: 'is required' })
  .max(253, { error: 'must be at most 253 characters' })
  .regex(/^[A-Za-z0-9.:_%[\]-]+$/, {
    error: 'must be a host name or an IP address (no spaces, no scheme, no port)',
  });

const Side = z.int().min(MIN_DESKTOP_SIDE).max(MAX_DESKTOP_SIDE);

/** Non-secret connection parameters. */
export const DesktopParams = z.strictObject({
  host: Host.optional(),
  port: z.int().min(1).max(65535).optional(),
  username: z.string().max(256).optional(),
  domain: z.string().max(256).optional(),
  /** RDP security negotiation. */
  security: z.enum(['any', 'nla', 'tls', 'rdp']).optional(),
  /** RDP server layout (guacd's `server-layout`), one of RDP_KEYBOARDS. */
  keyboard: z
    .string()
    .max(32)
    .refine((value) => (RDP_KEYBOARDS as readonly string[]).includes(value), {
      error: `must be one of guacd's layouts (${RDP_KEYBOARDS.join(', ')})`,
    })
    .optional(),
  read_only: z.boolean().optional(),
  /** A fixed size (both or neither); without one the desktop follows the person's layout. */
  width: Side.optional(),
  height: Side.optional(),
  /** local: stop the desktop after this many minutes without a viewer or an MCP session. */
  idle_stop_minutes: z.int().min(1).max(1440).optional(),
});
export type DesktopParams = z.infer<typeof DesktopParams>;

/** Write-only secrets: accepted in create/update, NEVER returned. */
export const DesktopSecrets = z.strictObject({
  /** The RDP or VNC password; '' in an update clears it. */
  password: z.string().max(256).optional(),
});
export type DesktopSecrets = z.infer<typeof DesktopSecrets>;

const RDP_ONLY = ['domain', 'security', 'keyboard'] as const;

/**
 * What is wrong with these parameters (and secrets) for this kind: each problem as a message and
 * the field at fault. Used by the create schema, and by the bridge after merging an update.
 */
export function desktopParamsIssues(
  kind: DesktopKind,
  params: DesktopParams,
  secrets: DesktopSecrets = {},
): Array<{ path: string[]; message: string }> {
  const issues: Array<{ path: string[]; message: string }> = [];
  const refuse = (path: string[], message: string) => issues.push({ path, message });
  if ((params.width === undefined) !== (params.height === undefined)) {
    refuse(
      ['params', params.width === undefined ? 'width' : 'height'],
      'give both width and height, or neither',
    );
  }
  if (kind === 'local') {
    for (const key of ['host', 'port', 'username'] as const) {
      if (params[key] !== undefined) {
        refuse(['params', key], 'a local desktop runs on this machine: leave it out');
      }
    }
    if (secrets.password !== undefined && secrets.password !== '') {
      refuse(
        ['secrets', 'password'],
        'a local desktop gets a fresh random password of its own: leave it out',
      );
    }
  } else {
    if (params.host === undefined) refuse(['params', 'host'], `is required for a ${kind} desktop`);
    if (params.port === undefined) refuse(['params', 'port'], `is required for a ${kind} desktop`);
    if (params.idle_stop_minutes !== undefined) {
      refuse(['params', 'idle_stop_minutes'], 'applies to local desktops only: leave it out');
    }
  }
  if (kind !== 'guacd-rdp') {
    for (const key of RDP_ONLY) {
      if (params[key] !== undefined)
        refuse(['params', key], 'applies to RDP desktops only: leave it out');
    }
  }
  return issues;
}

export const DesktopAccess = z.enum(['owner', 'admin', 'control', 'view']);
export type DesktopAccess = z.infer<typeof DesktopAccess>;

const PersonRef = z.object({ id: ApiId, name: z.string() });

export const DesktopGrantView = z.object({
  person_id: ApiId,
  person_name: z.string(),
  level: GrantLevel,
});
export type DesktopGrantView = z.infer<typeof DesktopGrantView>;

export const DesktopView = z.object({
  id: ApiId,
  name: z.string(),
  kind: DesktopKind,
  params: DesktopParams,
  has_password: z.boolean(),
  owner: PersonRef,
  /** The owner when nobody else took charge. */
  in_charge: PersonRef,
  /** Only shown to the owner and admins; [] for everyone else. */
  grants: z.array(DesktopGrantView),
  /** What the signed-in person may do with it. */
  access: DesktopAccess,
  created_at: EpochMs,
  updated_at: EpochMs,
});
export type DesktopView = z.infer<typeof DesktopView>;

export const DesktopList = z.object({
  desktops: z.array(DesktopView),
  /** Whether the signed-in person may add a desktop (admins; members when the setting allows). */
  may_add: z.boolean(),
});
export type DesktopList = z.infer<typeof DesktopList>;

export const CreateDesktopRequest = z
  .strictObject({
    name: PrintableName,
    kind: DesktopKind,
    params: DesktopParams.default({}),
    secrets: DesktopSecrets.optional(),
    /** Admins only; the person creating it by default. */
    owner_id: ApiId.optional(),
  })
  .superRefine((body, ctx) => {
    for (const issue of desktopParamsIssues(body.kind, body.params, body.secrets)) {
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
  });
export type CreateDesktopRequest = z.input<typeof CreateDesktopRequest>;

/** Every field optional; the kind cannot change. `params` replaces the parameters as a whole. */
export const UpdateDesktopRequest = z.strictObject({
  name: PrintableName.optional(),
  params: DesktopParams.optional(),
  secrets: DesktopSecrets.optional(),
  owner_id: ApiId.optional(),
});
export type UpdateDesktopRequest = z.infer<typeof UpdateDesktopRequest>;

export const GrantRequest = z.strictObject({ level: GrantLevel });
export type GrantRequest = z.infer<typeof GrantRequest>;
