// Recording turned on for the stack's desktops (the bridge's recording setting), for a spec that
// needs a live recording, and the setting put back as it was afterwards (the stack is shared).
import { expect } from '@playwright/test';
import { adminSession, type SignInTarget } from './signIn.js';

/** Turns recording on; the returned function puts the setting back as it was. */
export async function recordingOn(stack: SignInTarget): Promise<() => Promise<void>> {
  const admin = await adminSession(stack);
  const was: unknown = await (await admin.request('/api/settings/recording')).json();
  const on = await admin.request('/api/settings/recording', {
    method: 'PUT',
    body: { default_mode: 'on' },
  });
  expect(on.ok).toBe(true);
  return async () => {
    await (
      await adminSession(stack)
    ).request('/api/settings/recording', { method: 'PUT', body: was });
  };
}
