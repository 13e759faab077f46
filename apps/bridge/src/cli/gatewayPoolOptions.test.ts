// --gateways / OC_GATEWAYS and OC_GATEWAY_SECRET for serve, and the secret for `gateway`: every
// mistake is a usage error naming the fix, and a gateway:// member is never used without a secret.
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './args.js';

const SECRET = 'p'.repeat(32);

describe('the gateway pool options', () => {
  it('reads the members from the flag or the environment, with their kinds', () => {
    const env = { OC_GATEWAY_SECRET: SECRET };
    const flag = parseCommandLine(
      ['serve', '--gateways', 'gateway://10.0.0.7:4822, guacd://[::1]:4823'],
      env,
    );
    expect(flag).toMatchObject({
      command: 'serve',
      options: {
        gatewayPool: {
          members: [
            { kind: 'gateway', host: '10.0.0.7', port: 4822 },
            { kind: 'guacd', host: '::1', port: 4823 },
          ],
          secret: SECRET,
        },
      },
    });
    const fromEnv = parseCommandLine(['serve'], { ...env, OC_GATEWAYS: 'gateway://h:1' });
    expect(fromEnv).toMatchObject({ options: { gatewayPool: { members: [{ host: 'h' }] } } });
    expect(parseCommandLine(['serve'], {})).not.toHaveProperty('options.gatewayPool');
  });

  it('refuses what it cannot use, saying how to fix it', () => {
    const env = { OC_GATEWAY_SECRET: SECRET };
    const refusals: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [['serve', '--gateways', '10.0.0.7:4822'], env, /gateway:\/\/HOST:PORT/],
      [['serve', '--gateways', 'gateway://10.0.0.7'], env, /HOST:PORT/],
      [['serve', '--gateways', 'gateway://h:1,gateway://h:1'], env, /twice/],
      [['serve', '--gateways', 'gateway://h:1'], {}, /OC_GATEWAY_SECRET/],
      [['serve', '--gateways', 'gateway://h:1'], { OC_GATEWAY_SECRET: 'short' }, /at least 22/],
      [['serve', '--gateways', 'guacd://h:1', '--guacd', 'h:2'], env, /both given/],
      [['serve', '--gateways', 'gateway://h:1', '--rdp', 'h:3389'], env, /needs a real guacd/],
      [['gateway'], { OC_GATEWAY_SECRET: 'short' }, /at least 22/],
    ];
    for (const [argv, environment, words] of refusals)
      expect(() => parseCommandLine(argv, environment), argv.join(' ')).toThrow(words);
  });

  it('takes guacd alone without a secret, and RDP through a guacd of the pool', () => {
    expect(
      parseCommandLine(['serve', '--gateways', 'guacd://h:1', '--rdp', 'h:3389'], {}),
    ).toMatchObject({ options: { gatewayPool: { members: [{ kind: 'guacd' }] } } });
  });

  it('gives the gateway command its pool secret from the environment only', () => {
    expect(parseCommandLine(['gateway'], { OC_GATEWAY_SECRET: SECRET })).toMatchObject({
      command: 'gateway',
      options: { poolSecret: SECRET },
    });
    expect(parseCommandLine(['gateway'], {})).not.toHaveProperty('options.poolSecret');
  });
});
