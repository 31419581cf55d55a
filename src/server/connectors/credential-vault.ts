import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { secretFromDataDir } from '../secrets.ts';

// Credentials and tokens of connected platforms are stored encrypted (AES-256-GCM). The key comes
// from ENCRYPTION_KEY (32 bytes as 64 hex digits or base64) or is generated into the data directory
// on first run. Each ciphertext is bound to its connection (associated data), so a value copied from
// one connection's row into another's fails to decrypt instead of leaking access.

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export const ENCRYPTION_KEY_FILE = 'encryption-key';

export class CredentialDecryptionError extends Error {
  constructor() {
    super('Stored credentials could not be decrypted (wrong ENCRYPTION_KEY or damaged data).');
    this.name = 'CredentialDecryptionError';
  }
}

/** 32 key bytes from 64 hex digits or base64/base64url; null when the text is neither. */
export function parseEncryptionKey(text: string): Buffer | null {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return bytes.length === 32 ? bytes : null;
  }
  return null;
}

/** ENCRYPTION_KEY, or the key generated into the data directory on first run and reused after. */
export function resolveEncryptionKey(config: { encryptionKey?: string | undefined; dataDir: string }): Buffer {
  if (config.encryptionKey) {
    const key = parseEncryptionKey(config.encryptionKey);
    if (!key) throw new Error('ENCRYPTION_KEY must be 32 bytes: 64 hex digits or base64');
    return key;
  }
  const text = secretFromDataDir(config.dataDir, ENCRYPTION_KEY_FILE, {
    generate: () => randomBytes(32).toString('hex'),
    isValid: (value) => parseEncryptionKey(value) !== null,
  });
  return parseEncryptionKey(text)!;
}

export class CredentialVault {
  private readonly key: Buffer;
  private readonly digestKeys = new Map<string, Buffer>();

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('The credential key must be 32 bytes');
    this.key = key;
  }

  /** `binding` names what the secret belongs to, e.g. 'connection:12:shopify'. */
  seal(value: Record<string, string>, binding: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(binding, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
  }

  open(sealed: string, binding: string): Record<string, string> {
    const [version, payload] = sealed.split(':', 2);
    if (version !== VERSION || !payload) throw new CredentialDecryptionError();
    const bytes = Buffer.from(payload, 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new CredentialDecryptionError();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(binding, 'utf8'));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      return JSON.parse(plain) as Record<string, string>;
    } catch {
      throw new CredentialDecryptionError();
    }
  }

  /**
   * A keyed, deterministic digest of `value` (HMAC-SHA256 under a key derived from the vault's key
   * for `purpose`), base64url, `length` characters: equal inputs give equal digests, and nobody
   * without the key can compute one (blind indexes over sealed data).
   */
  digest(purpose: string, value: string, length = 16): string {
    let key = this.digestKeys.get(purpose);
    if (!key) this.digestKeys.set(purpose, (key = Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `storepulse:${purpose}`, 32))));
    return createHmac('sha256', key).update(value, 'utf8').digest('base64url').slice(0, length);
  }
}
