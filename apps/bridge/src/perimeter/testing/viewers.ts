// Security test support around SCRIPTED VIEWERS (test ws clients speaking the viewer protocol):
// waiting for the next message of a kind, and settling — proving the bridge has handled
// everything a window sent so far — so a test can assert that something did NOT happen without
// sleeping and hoping.
import type { Received, ScriptedViewer } from '../../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../../mcp/testing/wait.js';

export type Of<T extends Received['type']> = Extract<Received, { type: T }>;

export function ofType<T extends Received['type']>(viewer: ScriptedViewer, type: T): Array<Of<T>> {
  return viewer.received.filter((m): m is Of<T> => m.type === type);
}

/**
 * Waits for the next message of `type` that `viewer` receives after this call (earlier ones
 * do not count), so a test can act first and await the answer after.
 */
export function nextOf<T extends Received['type']>(
  viewer: ScriptedViewer,
  type: T,
): () => Promise<Of<T>> {
  const seen = ofType(viewer, type).length;
  return async () => {
    await waitUntil(() => ofType(viewer, type).length > seen, 5000);
    const message = ofType(viewer, type)[seen];
    if (message === undefined) throw new Error(`no ${type} arrived`);
    return message;
  };
}

/**
 * Sends a frame the bridge always answers (a malformed one gets an `error`) and waits for that
 * answer: the socket is ordered, so everything `viewer` sent before has been handled by then.
 */
export async function settle(viewer: ScriptedViewer): Promise<void> {
  const answered = nextOf(viewer, 'error');
  viewer.send('settle: not JSON, so the bridge answers with an error');
  await answered();
}
