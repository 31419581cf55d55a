import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A secret kept in the data directory: read when the file exists and is valid, otherwise generated
 * once (owner-only permissions) and reused on every later start. For installs that do not set the
 * secret in the environment.
 */
export function secretFromDataDir(dataDir: string, fileName: string, options: { generate: () => string; isValid: (value: string) => boolean }): string {
  const file = path.join(dataDir, fileName);
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (options.isValid(existing)) return existing;
  } catch {
    // First run: generate below.
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = options.generate();
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

export function randomSecret(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
