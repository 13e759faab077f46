// People, for admins (/api/people): add, list, change (role, name, disabled, password), remove.
import { z } from 'zod';
import { DisplayName, Password, PersonView, Role, Username } from './common.js';

export const PeopleList = z.object({ people: z.array(PersonView) });

/** An admin adds a person. Without a password they can sign in only through OpenID Connect. */
export const AddPersonRequest = z.strictObject({
  username: Username,
  display_name: DisplayName.optional(),
  password: Password.optional(),
  role: Role.default('member'),
});
export type AddPersonRequest = z.input<typeof AddPersonRequest>;

export const UpdatePersonRequest = z
  .strictObject({
    display_name: DisplayName.optional(),
    role: Role.optional(),
    disabled: z.boolean().optional(),
    password: Password.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    error: 'name at least one of display_name, role, disabled, password',
  });
export type UpdatePersonRequest = z.infer<typeof UpdatePersonRequest>;
