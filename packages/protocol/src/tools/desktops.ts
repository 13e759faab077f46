// Desktop tools (list_desktops, select_desktop): which desktops this token may use, who is in
// charge of each, and which one this MCP session works on. Every other tool acts on the
// session's desktop (or the one its optional `desktop` argument names). Both are answered by the
// bridge from its desktop records; neither touches a desktop.
import { z } from 'zod';
import { DesktopAccessLevel } from '../desktopState.js';
import { defineTool } from './define.js';
import { plainText } from './textArgs.js';

const DesktopRef = plainText(
  z
    .string()
    .min(1)
    .max(200)
    .describe('A desktop id (dsk_…) or its name, as list_desktops shows them.'),
  "a desktop's id or name",
);

export const DesktopSummary = z.strictObject({
  id: z.string().describe('The desktop id (dsk_…): pass it as `desktop` or to select_desktop.'),
  name: z.string().describe('The desktop’s name, as people see it.'),
  kind: z.string().describe('local, vnc, guacd-vnc or guacd-rdp.'),
  in_charge: z.string().describe('The person whose policy every AI input on it follows.'),
  access: DesktopAccessLevel.describe("What this token's person may do there."),
  ai_may_act: z
    .boolean()
    .describe(
      "True when this token's person is in charge: input, overlays and approvals work. False: only get_display_info and take_screenshot (the person in charge must hand over the charge first).",
    ),
  selected: z.boolean().describe('The desktop this session works on.'),
});

export const ListDesktopsInput = z.strictObject({});
export const ListDesktopsResult = z.strictObject({
  desktops: z.array(DesktopSummary).describe('The desktops this token may use, best first.'),
  selected: z
    .string()
    .nullable()
    .describe('Id of the session’s desktop; null when none is usable.'),
});

export const listDesktops = defineTool({
  name: 'list_desktops',
  title: 'List desktops',
  description:
    "Lists the desktops this token may use: id, name, kind, who is in charge, and whether this AI may act there (ai_may_act: only on desktops whose person in charge is this token's person). Use select_desktop to switch; every other tool works on the selected desktop, or on the one its optional `desktop` argument names.",
  input: ListDesktopsInput,
  result: ListDesktopsResult,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  kind: 'desktop',
  runsIn: 'bridge',
  policyClass: 'free',
  summarize: (_a, r) =>
    r.desktops.length === 0
      ? 'This token may use no desktop.'
      : `${r.desktops.length} desktop(s): ${r.desktops.map((d) => `${d.name}${d.selected ? ' (selected)' : ''}`).join(', ')}.`,
});

export const SelectDesktopInput = z.strictObject({ desktop: DesktopRef });
export const SelectDesktopResult = z.strictObject({
  ok: z.literal(true).describe('The session works on this desktop now.'),
  desktop: z
    .strictObject({
      id: z.string().describe('The desktop id (dsk_…).'),
      name: z.string().describe('The desktop’s name.'),
    })
    .describe('The desktop selected.'),
  in_charge: z.string().describe('The person whose policy every AI input on it follows.'),
  ai_may_act: z
    .boolean()
    .describe('True when this token’s person is in charge there; false: look only.'),
});

export const selectDesktop = defineTool({
  name: 'select_desktop',
  title: 'Select desktop',
  description:
    'Makes this MCP session work on another desktop (an id or name from list_desktops). Overlays, screenshots and input of later calls go there. Fails with permission_denied when the token may not use that desktop, naming what the person must grant.',
  input: SelectDesktopInput,
  result: SelectDesktopResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  kind: 'desktop',
  runsIn: 'bridge',
  policyClass: 'free',
  summarize: (_a, r) =>
    `Working on ${r.desktop.name}; ${r.ai_may_act ? 'this AI may act there' : `${r.in_charge} is in charge, so this AI may only look`}.`,
});
