// list_desktops and select_desktop: the session's choice of desktop (sessionDesktop.ts). The
// call's plane is already the desktop asked for and checked (toolCall.ts resolves it first);
// select_desktop only makes it the session's desktop.
import { implementTool } from '../toolkit.js';

export const listDesktops = implementTool('list_desktops', async (_args, ctx) => ({
  structured: await ctx.session.desktop.list(),
}));

export const selectDesktop = implementTool('select_desktop', (_args, ctx) => {
  const { plane } = ctx;
  ctx.session.desktop.select(plane);
  const inCharge = plane.inCharge();
  return Promise.resolve({
    structured: {
      ok: true as const,
      desktop: { id: plane.desktopId, name: plane.desktopName },
      in_charge: inCharge.name,
      ai_may_act: inCharge.id === ctx.session.principal.personId,
    },
  });
});
