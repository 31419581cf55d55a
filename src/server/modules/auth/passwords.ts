import { hash, verify } from '@node-rs/argon2';

// argon2id (the library's default) with OWASP's minimum: 19 MiB, 2 passes, 1 lane.
const ARGON2_OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

let unknownUserHash: Promise<string> | null = null;

/**
 * Verifies a password; with no stored hash (unknown user) it still spends the time of one
 * verification, so response time does not reveal which usernames exist.
 */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (storedHash === null) {
    unknownUserHash ??= hashPassword('not-a-real-password-for-timing-only');
    await verify(await unknownUserHash, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
}
