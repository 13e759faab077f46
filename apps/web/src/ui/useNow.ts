// A clock for countdowns: re-renders the caller every `intervalMs` while `active`, and not at
// all otherwise, so a connected viewer does no periodic rendering.
import { useEffect, useState } from 'react';

export function useNow(active: boolean, intervalMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return undefined;
    const tick = () => setNow(Date.now());
    // The value kept from the last active period is stale; refresh right away (next task),
    // not a whole interval later.
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, intervalMs);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [active, intervalMs]);
  return now;
}
