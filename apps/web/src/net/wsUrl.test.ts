// wsUrl: scheme follows the page, host (with port) is kept, relative paths are rejected.
import { describe, expect, it } from 'vitest';
import { wsUrl } from './wsUrl.js';

describe('wsUrl', () => {
  it('uses ws for http and wss for https, keeping the port', () => {
    expect(wsUrl('/tunnel', { protocol: 'http:', host: '127.0.0.1:43123' })).toBe(
      'ws://127.0.0.1:43123/tunnel',
    );
    expect(wsUrl('/tunnel', { protocol: 'https:', host: 'desk.example' })).toBe(
      'wss://desk.example/tunnel',
    );
  });

  it('rejects relative paths', () => {
    expect(() => wsUrl('tunnel', { protocol: 'http:', host: 'x' })).toThrow(/absolute path/);
  });
});
