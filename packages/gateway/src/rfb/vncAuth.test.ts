import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { desEncryptBlock } from './des.js';
import { encryptStoredVncPassword, vncAuthResponse } from './vncAuth.js';

describe('DES', () => {
  // Published vectors: the FIPS 46 worked example and NBS/NIST validation entries.
  test.each([
    ['133457799bbcdff1', '0123456789abcdef', '85e813540f0ab405'],
    ['0e329232ea6d0d73', '8787878787878787', '0000000000000000'],
    ['0101010101010101', '95f8a5e5dd31d900', '8000000000000000'],
    ['8001010101010101', '0000000000000000', '95a8d72813daa94d'],
    ['7ca110454a1a6e57', '01a1d6d039776742', '690f5b0d9a26939b'],
  ])('key %s encrypts %s to %s', (key, plain, cipher) => {
    expect(
      desEncryptBlock(Buffer.from(key, 'hex'), Buffer.from(plain, 'hex')).toString('hex'),
    ).toBe(cipher);
  });

  test('rejects wrong block or key sizes', () => {
    expect(() => desEncryptBlock(Buffer.alloc(7), Buffer.alloc(8))).toThrow(RangeError);
  });
});

describe('VNC passwords', () => {
  test.each(['secret', 'a', 'exactly8', 'longer than eight', 'pässwörd'])(
    'stored form of %j equals `vncpasswd -f`',
    (password) => {
      const expected = execFileSync('vncpasswd', ['-f'], { input: `${password}\n` });
      expect(encryptStoredVncPassword(password).toString('hex')).toBe(expected.toString('hex'));
    },
  );

  test('challenge response encrypts both halves with the bit-mirrored password key', () => {
    const challenge = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const response = vncAuthResponse(challenge, 'secret');
    // 'secret' with each byte's bits mirrored, NUL-padded to 8 bytes.
    const mirroredKey = Buffer.from([0xce, 0xa6, 0xc6, 0x4e, 0xa6, 0x2e, 0x00, 0x00]);
    expect(response.subarray(0, 8)).toEqual(desEncryptBlock(mirroredKey, challenge.subarray(0, 8)));
    expect(response.subarray(8)).toEqual(desEncryptBlock(mirroredKey, challenge.subarray(8)));
    expect(vncAuthResponse(challenge, 'secret-and-more')).toEqual(
      vncAuthResponse(challenge, 'secret-a'),
    );
  });
});
