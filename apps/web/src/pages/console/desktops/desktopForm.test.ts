import { describe, expect, it } from 'vitest';
import type { DesktopView } from '@overlay-companion/protocol';
import { createRequest, emptyFields, fieldsOf, updateRequest, whereOf } from './desktopForm.js';

const RDP: DesktopView = {
  id: 'dsk_1',
  name: 'Office',
  kind: 'guacd-rdp',
  params: { host: 'rdp.example', port: 3389, keyboard: 'de-de-qwertz' },
  has_password: true,
  owner: { id: 'p_1', name: 'Ada' },
  in_charge: { id: 'p_1', name: 'Ada' },
  grants: [],
  access: 'owner',
  created_at: 1,
  updated_at: 1,
};

describe('the desktop form', () => {
  it('sends only the parameters of the kind, numbers as numbers, the password when typed', () => {
    const fields = {
      ...emptyFields('guacd-rdp'),
      name: 'Office',
      host: ' rdp.example ',
      keyboard: 'de-de-qwertz',
      idleStopMinutes: '30',
      password: 'pw',
    };
    expect(createRequest(fields)).toEqual({
      ok: true,
      body: {
        name: 'Office',
        kind: 'guacd-rdp',
        params: { host: 'rdp.example', port: 3389, keyboard: 'de-de-qwertz' },
        secrets: { password: 'pw' },
      },
    });
    const local = createRequest({ ...fields, kind: 'local', name: 'Sandbox' });
    expect(local).toEqual({
      ok: true,
      body: { name: 'Sandbox', kind: 'local', params: { idle_stop_minutes: 30 } },
    });
  });

  it('puts the schemas’ issues under the field they are about', () => {
    const badPort = createRequest({ ...emptyFields('vnc'), name: 'X', port: 'abc' });
    expect(badPort.ok ? [] : Object.keys(badPort.fields)).toEqual(['port']);
    const noHost = createRequest({ ...emptyFields('vnc'), name: 'X' });
    expect(noHost.ok ? {} : noHost.fields).toEqual({
      host: 'Host is required for a vnc desktop.',
    });
  });

  it('keeps the stored password unless one is typed or cleared', () => {
    const fields = fieldsOf(RDP);
    expect(updateRequest(fields, RDP)).toEqual({ ok: true, body: { params: RDP.params } });
    expect(updateRequest({ ...fields, password: 'new' }, RDP)).toMatchObject({
      ok: true,
      body: { secrets: { password: 'new' } },
    });
    expect(updateRequest({ ...fields, clearPassword: true }, RDP)).toMatchObject({
      ok: true,
      body: { secrets: { password: '' } },
    });
    expect(updateRequest({ ...fields, host: '' }, RDP)).toMatchObject({ ok: false });
  });

  it('says where a desktop is', () => {
    expect(whereOf(RDP)).toBe('rdp.example:3389');
    expect(whereOf({ kind: 'vnc', params: { host: '::1', port: 5900 } })).toBe('[::1]:5900');
    expect(whereOf({ kind: 'local', params: {} })).toBe('This machine');
  });
});
