// The person's monitor layout from a test, the way the layout page saves it (PUT /api/layout as
// the signed-in admin), and back to none (DELETE) so later tests on the same stack see one monitor.
import { API, type MonitorLayout } from '@overlay-companion/protocol';
import { adminSession, type SignInTarget } from './signIn.js';

export async function saveLayout(
  stack: SignInTarget,
  layout: Omit<MonitorLayout, 'masks'> & Partial<Pick<MonitorLayout, 'masks'>>,
): Promise<void> {
  const session = await adminSession(stack);
  const answer = await session.request(API.layout, { method: 'PUT', body: { layout } });
  if (!answer.ok) throw new Error(`PUT /api/layout: ${answer.status} ${await answer.text()}`);
}

export async function clearLayout(stack: SignInTarget): Promise<void> {
  const session = await adminSession(stack);
  const answer = await session.request(API.layout, { method: 'DELETE' });
  if (!answer.ok) throw new Error(`DELETE /api/layout: ${answer.status} ${await answer.text()}`);
}
