import { createHash, randomBytes } from 'node:crypto';

/** The secret of an e-mailed link (password reset, e-mail change, invitation): 32 random bytes, base64url. */
export function newLinkToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored of such a secret (or of a session id): its SHA-256 in hex, so a database copy opens nothing. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
