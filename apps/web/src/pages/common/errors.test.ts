import { DisplayName, Password, SetupRequest } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../net/api.js';
import { errorText, fieldErrorsFromIssues, formErrorsFrom, signInErrorText } from './errors.js';

const now = new Date(2026, 10, 24, 14, 0, 10).getTime();

describe('errorText', () => {
  it('shows the bridge sentence, with when to try again after a 429', () => {
    expect(errorText(new ApiRequestError('Name taken.', { status: 409 }), now)).toBe('Name taken.');
    expect(
      errorText(new ApiRequestError('Slow down.', { status: 429, retryAfterMs: 90_000 }), now),
    ).toBe('Slow down. You can try again at 14:02.');
    expect(errorText(new Error('plain'), now)).toBe('plain');
    expect(errorText('text', now)).toBe('text');
  });

  it('says a sign-in ban plainly, with the minute it ends', () => {
    expect(
      signInErrorText(
        new ApiRequestError('Banned.', { status: 429, retryAfterMs: 5 * 60_000 }),
        now,
      ),
    ).toBe('Too many failed sign-ins; try again at 14:06.');
    expect(signInErrorText(new ApiRequestError('Banned.', { status: 429 }), now)).toContain(
      'wait a few minutes',
    );
    expect(
      signInErrorText(new ApiRequestError('Wrong username or password.', { status: 401 }), now),
    ).toBe('Wrong username or password.');
  });
});

describe('form errors', () => {
  it('puts a refusal under the field the bridge named, when the form has it', () => {
    const taken = new ApiRequestError('That username is taken.', {
      status: 409,
      field: 'username',
    });
    expect(formErrorsFrom(taken, ['username', 'password'], now)).toEqual({
      form: null,
      fields: { username: 'That username is taken.' },
    });
    expect(formErrorsFrom(taken, ['password'], now)).toEqual({
      form: 'That username is taken.',
      fields: {},
    });
  });

  it('words schema issues after the field label, first issue per field', () => {
    const result = SetupRequest.safeParse({
      code: 'c',
      username: 'a b',
      display_name: ' ',
      password: 'short',
    });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(
      fieldErrorsFromIssues(result.error.issues, {
        username: 'Username',
        display_name: 'Display name',
        password: 'Password',
      }),
    ).toEqual({
      username: 'Username may contain only letters, digits and . _ @ -.',
      display_name: 'Display name is required.',
      password: 'Password must be at least 10 characters.',
    });
    expect(DisplayName.safeParse('x').success && Password.safeParse('0123456789').success).toBe(
      true,
    );
  });
});
