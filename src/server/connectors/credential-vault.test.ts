import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialDecryptionError, CredentialVault, ENCRYPTION_KEY_FILE, parseEncryptionKey, resolveEncryptionKey } from './credential-vault.ts';

const key = Buffer.alloc(32, 7);

describe('credential vault', () => {
  it('round-trips credentials and never stores them in clear', () => {
    const vault = new CredentialVault(key);
    const sealed = vault.seal({ accessToken: 'shpat_secret_token', shop: 'demo.myshopify.com' }, 'connection:1:shopify');
    expect(sealed.startsWith('v1:')).toBe(true);
    expect(sealed).not.toContain('shpat_secret_token');
    expect(Buffer.from(sealed.slice(3), 'base64').toString('latin1')).not.toContain('shpat');
    expect(vault.open(sealed, 'connection:1:shopify')).toEqual({ accessToken: 'shpat_secret_token', shop: 'demo.myshopify.com' });
    // A fresh IV every time: equal secrets do not give equal ciphertexts.
    expect(vault.seal({ a: 'b' }, 'x')).not.toBe(vault.seal({ a: 'b' }, 'x'));
  });

  it('refuses a ciphertext moved to another connection, a tampered one, or another key', () => {
    const vault = new CredentialVault(key);
    const sealed = vault.seal({ apiKey: 'pk_live' }, 'connection:1:klaviyo');
    expect(() => vault.open(sealed, 'connection:2:klaviyo')).toThrow(CredentialDecryptionError);
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect(() => vault.open(`v1:${bytes.toString('base64')}`, 'connection:1:klaviyo')).toThrow(CredentialDecryptionError);
    expect(() => new CredentialVault(Buffer.alloc(32, 9)).open(sealed, 'connection:1:klaviyo')).toThrow(CredentialDecryptionError);
    expect(() => vault.open('garbage', 'connection:1:klaviyo')).toThrow(CredentialDecryptionError);
  });

  it('reads ENCRYPTION_KEY as hex or base64 and rejects a short one', () => {
    expect(parseEncryptionKey('ab'.repeat(32))?.length).toBe(32);
    expect(parseEncryptionKey(Buffer.alloc(32, 1).toString('base64'))?.length).toBe(32);
    expect(parseEncryptionKey('too-short')).toBeNull();
    expect(() => resolveEncryptionKey({ encryptionKey: 'too-short', dataDir: '/nonexistent' })).toThrow(/ENCRYPTION_KEY/);
  });

  it('generates a key into the data directory once and reuses it', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vault-'));
    try {
      const first = resolveEncryptionKey({ dataDir });
      const second = resolveEncryptionKey({ dataDir });
      expect(second.equals(first)).toBe(true);
      expect((await readFile(path.join(dataDir, ENCRYPTION_KEY_FILE), 'utf8')).trim()).toBe(first.toString('hex'));
      expect((await stat(path.join(dataDir, ENCRYPTION_KEY_FILE))).mode & 0o077).toBe(0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
