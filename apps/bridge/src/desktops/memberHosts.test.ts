// A member's desktop may not point the bridge at this machine, link-local (cloud metadata) or
// multicast addresses, however written; names are resolved once and pinned to the address
// checked.
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { memberDesktopAddress, refusedForMembers } from './memberHosts.js';

describe('refusedForMembers', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '0.0.0.0',
    '169.254.169.254',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    'not an address',
  ])('refuses %s', (address) => {
    expect(refusedForMembers(address)).toBe(true);
  });

  it.each(['192.0.2.10', '10.1.2.3', '192.168.1.20', '2001:db8::5'])('allows %s', (address) => {
    // (unless it is one of this machine's own addresses)
    const own = Object.values(networkInterfaces()).flatMap((l) => (l ?? []).map((e) => e.address));
    expect(refusedForMembers(address)).toBe(own.includes(address));
  });

  it("refuses every address of this machine's own interfaces", () => {
    const own = Object.values(networkInterfaces()).flatMap((l) => (l ?? []).map((e) => e.address));
    expect(own.length).toBeGreaterThan(0);
    for (const address of own) expect(refusedForMembers(address.split('%')[0] ?? '')).toBe(true);
  });
});

describe('memberDesktopAddress', () => {
  it('resolves a name and refuses one that means this machine', async () => {
    await expect(memberDesktopAddress('localhost', 'Mine')).rejects.toThrow(
      /points at localhost .*may not reach/,
    );
    await expect(memberDesktopAddress('[::1]', 'Mine')).rejects.toThrow(/may not reach/);
    await expect(memberDesktopAddress('169.254.169.254', 'Mine')).rejects.toThrow(/link-local/);
  });

  it('gives back the address it checked', async () => {
    expect(await memberDesktopAddress('192.0.2.10', 'Mine')).toBe('192.0.2.10');
    expect(await memberDesktopAddress('[2001:db8::5]', 'Mine')).toBe('2001:db8::5');
  });

  it('says so when the name does not resolve', async () => {
    await expect(memberDesktopAddress('no-such-host.invalid', 'Mine')).rejects.toThrow(
      /does not resolve/,
    );
  });
});
