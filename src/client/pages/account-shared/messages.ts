import type { TFunction } from 'i18next';
import { serverMessage } from '../../lib/session.ts';

/**
 * The server's user-facing texts are English; the ones these screens can meet are shown in the
 * reader's language (the English translation is the server's text word for word). Anything else is
 * shown as the server wrote it.
 */
const KNOWN_SERVER_MESSAGES: Record<string, string> = {
  'Store name is required': 'serverMessages.storeNameRequired',
  'Store name must be at most 100 characters': 'serverMessages.storeNameTooLong',
  "You've reached your dashboard limit. Please upgrade your plan to create more dashboards.": 'stores.limitReached.description',
  'Store not found': 'serverMessages.storeNotFound',
  'Guest mode is read-only': 'serverMessages.guestModeReadOnly',
  'Current password is incorrect': 'serverMessages.currentPasswordIncorrect',
  'Current password is required': 'serverMessages.currentPasswordRequired',
  'Passwords do not match': 'serverMessages.passwordsDoNotMatch',
  'Password must be at least 10 characters': 'serverMessages.passwordTooShort',
  'Password must be at most 256 characters': 'serverMessages.passwordTooLong',
  'Username must be 3 to 32 characters': 'serverMessages.usernameLength',
  'Username may contain only letters, digits, underscores, dots and hyphens': 'serverMessages.usernamePattern',
  'Enter a valid email address': 'serverMessages.emailInvalid',
  'That username is already taken': 'serverMessages.usernameTaken',
  'An account with that email already exists': 'serverMessages.emailTaken',
  'This reset link is invalid or has expired.': 'reset.invalidLink',
  "If an account exists for that email, we've sent a link to reset your password.": 'forgot.sent',
  'You have already used your free trial.': 'serverMessages.trialUsed',
  'You already have an active subscription.': 'serverMessages.alreadySubscribed',
  'Plan not found': 'serverMessages.planNotFound',
  'To change your email address, confirm it with your password': 'serverMessages.emailChangeNeedsConfirmation',
  'That is already your email address': 'serverMessages.emailUnchanged',
  'This confirmation link is invalid or has expired.': 'confirmEmail.invalidBody',
  'Text must not contain NUL characters': 'serverMessages.nulCharacter',
};

/** A server text in the reader's language when it is one we know. `t` must be bound to the account namespace. */
export function localizeServerText(t: TFunction<'account'>, message: string): string {
  const key = KNOWN_SERVER_MESSAGES[message];
  return key ? t(key) : message;
}

/** The error's text for a toast or alert: the server's words (localized when known), else a connection hint. */
export function errorText(t: TFunction<'account'>, error: unknown): string {
  const message = serverMessage(error);
  return message ? localizeServerText(t, message) : t('errors.unreachable');
}

/** A local zod check's issues as field errors (the first per field), localized like the server's. */
export function localizeIssues(t: TFunction<'account'>, issues: readonly { path: readonly PropertyKey[]; message: string }[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const issue of issues) found[String(issue.path[0])] ??= localizeServerText(t, issue.message);
  return found;
}

/** Field errors from the server, localized. */
export function localizeFieldErrors(t: TFunction<'account'>, errors: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(errors).map(([field, message]) => [field, localizeServerText(t, message)]));
}
