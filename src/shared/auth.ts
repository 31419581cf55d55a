import { z } from 'zod';

export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
export const PASSWORD_MIN_LENGTH = 10;
/** argon2 hashes whatever it is given; a cap keeps a megabyte "password" from costing CPU. */
export const PASSWORD_MAX_LENGTH = 256;

export const usernameSchema = z
  .string({ error: 'Username is required' })
  .trim()
  .min(3, 'Username must be 3 to 32 characters')
  .max(32, 'Username must be 3 to 32 characters')
  .regex(USERNAME_PATTERN, 'Username may contain only letters, digits, underscores, dots and hyphens');

export const emailSchema = z
  .string({ error: 'Email is required' })
  .trim()
  .max(254, 'Enter a valid email address')
  .pipe(z.email('Enter a valid email address'));

export const newPasswordSchema = z
  .string({ error: 'Password is required' })
  .min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `Password must be at most ${PASSWORD_MAX_LENGTH} characters`);

export const registerInput = z.object({
  username: usernameSchema,
  email: emailSchema,
  password: newPasswordSchema,
});
export type RegisterInput = z.infer<typeof registerInput>;

export const loginInput = z.object({
  username: z.string({ error: 'Username is required' }).trim().min(1, 'Username is required').max(254),
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(PASSWORD_MAX_LENGTH),
  /** An account scheduled for deletion signs in only to cancel the deletion (privacy/account-deletion.ts). */
  cancelDeletion: z.boolean().optional(),
});
export type LoginInput = z.infer<typeof loginInput>;

export const userOutput = z.object({
  id: z.number(),
  username: z.string(),
  email: z.string(),
  isAdmin: z.boolean(),
  isGuest: z.boolean(),
  marketingEmails: z.boolean(),
  createdAt: z.string(),
});
export type PublicUser = z.infer<typeof userOutput>;

export const INVALID_CREDENTIALS_MESSAGE = 'Invalid username or password';
