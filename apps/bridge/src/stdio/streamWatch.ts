// A fetch wrapper that tells the stdio proxy when the bridge's answer stream for a POST ends
// (normally, or because the bridge died mid-call), with the JSON-RPC request ids that POST
// carried. The SDK transport does not say which request a dead stream belonged to; without
// this, a stdio client would wait forever for an answer the bridge can no longer send.
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Ids of the requests in a POST body (a single message or a batch); [] for anything else. */
export function requestIdsOf(body: unknown): RequestId[] {
  if (typeof body !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  const ids: RequestId[] = [];
  for (const m of messages) {
    if (typeof m !== 'object' || m === null || !('method' in m) || !('id' in m)) continue;
    const id = (m as { id: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') ids.push(id);
  }
  return ids;
}

export function watchResponseStreams(
  base: FetchLike,
  onStreamEnd: (ids: RequestId[]) => void,
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    const ids = init?.method === 'POST' ? requestIdsOf(init.body) : [];
    const type = response.headers.get('content-type') ?? '';
    if (ids.length === 0 || response.body === null || !type.includes('text/event-stream')) {
      return response;
    }
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      onStreamEnd(ids);
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            end();
          } else {
            controller.enqueue(value);
          }
        } catch (err) {
          controller.error(err);
          end();
        }
      },
      async cancel(reason) {
        end();
        await reader.cancel(reason);
      },
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
