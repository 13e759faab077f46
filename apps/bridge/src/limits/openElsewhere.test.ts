// What the other bridges of a site hold open: summed over the bridges that told, replaced by each
// bridge's next word, dropped when it says it holds nothing or goes quiet (it died).
import { describe, expect, it } from 'vitest';
import { OPEN_COUNTS_REFRESH_MS, OpenElsewhere, openKey } from './openElsewhere.js';

describe('OpenElsewhere', () => {
  const key = openKey.tokenSessions('tok_1');

  it('sums what each bridge last told, and forgets a bridge that holds nothing', () => {
    const open = new OpenElsewhere();
    open.told('bOne', { [key]: 3 }, 0);
    open.told('bTwo', { [key]: 4, [openKey.personTunnels('p1')]: 2 }, 0);
    expect(open.count(key)).toBe(7);
    expect(open.count(openKey.personTunnels('p1'))).toBe(2);
    open.told('bOne', { [key]: 1 }, 1);
    expect(open.count(key)).toBe(5);
    open.told('bTwo', {}, 2);
    expect(open.count(key)).toBe(1);
    expect(open.count(openKey.personTunnels('p1'))).toBe(0);
  });

  it('forgets a bridge quiet for three refreshes (it died), not one that keeps telling', () => {
    const open = new OpenElsewhere();
    open.told('bDead', { [key]: 5 }, 0);
    open.told('bLive', { [key]: 1 }, 0);
    open.told('bLive', { [key]: 1 }, 2 * OPEN_COUNTS_REFRESH_MS);
    open.forgetQuiet(3 * OPEN_COUNTS_REFRESH_MS);
    expect(open.count(key)).toBe(6);
    open.forgetQuiet(3 * OPEN_COUNTS_REFRESH_MS + 1);
    expect(open.count(key)).toBe(1);
  });
});
