import { describe, expect, it } from 'vitest';
import { navItems, pageFor, pageTitle } from './routes.js';

describe('console routes', () => {
  it('shows People only to admins, the viewer first', () => {
    expect(navItems('member').map((item) => item.label)).toEqual([
      'Viewer',
      'Config & tokens',
      'Desktops',
      'Fleet',
      'Monitor layout',
      'Settings',
      'Audit',
      'Recordings',
    ]);
    expect(navItems('admin').map((item) => item.href)).toEqual([
      '/',
      '/config',
      '/desktops',
      '/fleet',
      '/layout',
      '/settings',
      '/audit',
      '/recordings',
      '/people',
    ]);
    expect(navItems('admin')[0]?.page).toBeUndefined();
  });

  it('maps paths to pages', () => {
    expect(pageFor('/config')).toBe('config');
    expect(pageFor('/audit/')).toBe('audit');
    expect(pageFor('/people')).toBe('people');
    expect(pageFor('/layout')).toBe('layout');
    expect(pageFor('/desktops')).toBe('desktops');
    expect(pageFor('/fleet')).toBe('fleet');
    expect(pageFor('/recordings')).toBe('recordings');
    expect(pageFor('/recordings/rec_1')).toBe('recordings');
    expect(pageFor('/recordings/rec_1/x')).toBeNull();
    expect(pageFor('/')).toBeNull();
    expect(pageFor('/configx')).toBeNull();
    expect(pageTitle('settings')).toBe('Settings');
    expect(pageTitle(null)).toBe('Page not found');
  });
});
