// TunnelRegistry's memory of a stalled desktop link (what /readyz reads): set by a tunnel ended
// with 514, cleared by a relayed frame, forgotten STALL_MEMORY_MS after it was last seen.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { DesktopConnections } from './desktopConnections.js';
import { STALL_MEMORY_MS, TunnelRegistry } from './registry.js';

function registry(): TunnelRegistry {
  const connections = new DesktopConnections({
    target: () => Promise.reject(new Error('no desktop in this test')),
    handshakeTimeoutMs: 1000,
    logger: silentLogger(),
  });
  return new TunnelRegistry(connections);
}

describe('TunnelRegistry link stall', () => {
  it('is stalled from the first 514 until a frame is relayed', () => {
    const r = registry();
    expect(r.stalledSince(1000)).toBeUndefined();
    r.linkTimedOut(1000);
    r.linkTimedOut(12_000); // the browser reconnected and timed out again
    expect(r.stalledSince(13_000)).toBe(1000);
    r.desktopAnswered();
    expect(r.stalledSince(13_001)).toBeUndefined();
  });

  it('forgets a stall nobody has seen again for STALL_MEMORY_MS', () => {
    const r = registry();
    r.linkTimedOut(5000);
    expect(r.stalledSince(5000 + STALL_MEMORY_MS)).toBe(5000);
    expect(r.stalledSince(5001 + STALL_MEMORY_MS)).toBeUndefined();
  });
});
