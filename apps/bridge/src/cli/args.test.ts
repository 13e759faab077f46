// Command-line parsing: defaults, the one-desktop-source rule, credentials from the environment,
// and usage errors that name the flag.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { parseCommandLine } from './args.js';

const parse = (line: string, env: NodeJS.ProcessEnv = {}) =>
  parseCommandLine(line.split(' ').filter(Boolean), env);

describe('parseCommandLine', () => {
  it('defaults serve to a local desktop on 127.0.0.1:8080 with ./.data', () => {
    expect(parse('serve')).toEqual({
      command: 'serve',
      options: {
        host: '127.0.0.1',
        port: 8080,
        dataDir: './.data',
        webRoot: undefined,
        source: { kind: 'local' },
        guacd: undefined,
      },
    });
  });

  it('accepts --port 0 (a free port) and an explicit host and data dir', () => {
    const command = parse('serve --host 0.0.0.0 --port 0 --data-dir /tmp/x');
    expect(command.command === 'serve' && command.options).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      dataDir: '/tmp/x',
    });
  });

  it('takes the VNC password from OC_VNC_PASSWORD, never from a flag', () => {
    const command = parse('serve --vnc 10.0.0.5:5901', { OC_VNC_PASSWORD: 's3cret' });
    expect(command.command === 'serve' && command.options.source).toEqual({
      kind: 'vnc',
      vnc: { host: '10.0.0.5', port: 5901 },
      password: 's3cret',
    });
    expect(() => parse('serve --vnc 10.0.0.5:5901 --password x')).toThrow(UsageError);
  });

  it('needs --guacd with --rdp and reads the RDP credentials from the environment', () => {
    expect(() => parse('serve --rdp host:3389')).toThrow(/--rdp needs a real guacd/);
    const command = parse('serve --guacd 127.0.0.1:4822 --rdp [::1]:3389', {
      OC_RDP_USER: 'u',
      OC_RDP_PASSWORD: 'p',
    });
    expect(command.command === 'serve' && command.options).toMatchObject({
      guacd: { host: '127.0.0.1', port: 4822 },
      source: { kind: 'rdp', rdp: { host: '::1', port: 3389 }, username: 'u', password: 'p' },
    });
  });

  it('takes the desktop size from --desktop-size, else OC_DESKTOP_SIZE, naming the one that is wrong', () => {
    const size = (line: string, env?: NodeJS.ProcessEnv) => {
      const command = parse(line, env);
      return command.command === 'serve' ? command.options.desktopSize : undefined;
    };
    expect(size('serve --desktop-size 3840x1080')).toEqual({ width: 3840, height: 1080 });
    expect(size('serve', { OC_DESKTOP_SIZE: '1920x1080' })).toEqual({ width: 1920, height: 1080 });
    expect(size('serve --desktop-size 1280x800', { OC_DESKTOP_SIZE: '1920x1080' })).toEqual({
      width: 1280,
      height: 800,
    });
    expect(() => parse('serve --desktop-size big')).toThrow(/--desktop-size expects WIDTHxHEIGHT/);
    expect(() => parse('serve', { OC_DESKTOP_SIZE: '10x10' })).toThrow(
      /OC_DESKTOP_SIZE expects WIDTHxHEIGHT/,
    );
  });

  it("passes --rdp-keyboard as guacd's server-layout, knowing guacd's layouts", () => {
    const command = parse(
      'serve --guacd 127.0.0.1:4822 --rdp host:3389 --rdp-keyboard de-de-qwertz',
    );
    expect(command.command === 'serve' && command.options.source).toMatchObject({
      kind: 'rdp',
      keyboard: 'de-de-qwertz',
    });
    expect(() => parse('serve --guacd a:1 --rdp host:3389 --rdp-keyboard klingon')).toThrow(
      /--rdp-keyboard expects one of guacd's layouts \(.*en-us-qwerty.*\), got "klingon"/,
    );
    expect(() => parse('serve --rdp-keyboard de-de-qwertz')).toThrow(/for --rdp desktops only/);
  });

  it('refuses two desktop sources, unknown desktops, bad ports and unknown flags', () => {
    expect(() => parse('serve --desktop local --vnc a:1')).toThrow(
      /Choose one desktop source: --desktop and --vnc/,
    );
    expect(() => parse('serve --desktop remote')).toThrow(/--desktop only knows "local"/);
    expect(() => parse('serve --port 70000')).toThrow(/--port expects a number from 0 to 65535/);
    expect(() => parse('serve --vnc nohostport')).toThrow(/--vnc expects HOST:PORT/);
    expect(() => parse('serve --prot 1')).toThrow(UsageError);
    expect(() => parse('launch')).toThrow(/Unknown command "launch"/);
  });

  it('parses gateway --listen, allowing port 0', () => {
    expect(parse('gateway')).toEqual({
      command: 'gateway',
      options: { listen: { host: '127.0.0.1', port: 4822 } },
    });
    expect(parse('gateway --listen 127.0.0.1:0')).toEqual({
      command: 'gateway',
      options: { listen: { host: '127.0.0.1', port: 0 } },
    });
  });

  it('answers help and version', () => {
    expect(parse('')).toEqual({ command: 'help' });
    expect(parse('serve --help')).toEqual({ command: 'help' });
    expect(parse('--version')).toEqual({ command: 'version' });
  });
});
