import { createHash } from 'node:crypto';
import type { CredentialVault } from '../../connectors/credential-vault.ts';
import { integrationsSettings } from '../integrations/integrations-runtime.ts';

// A customer's name and e-mail address are personal data (Shopify's "protected customer data",
// level 2, released to public apps after a review of how they are protected). They are stored sealed with the
// credential key (AES-256-GCM, README "Customer contact details"), bound to the customer's store,
// platform and id, so a sealed value copied to another row does not open. They are found without
// decrypting the store: an e-mail by its SHA-256 hash (customers.email_hash, which the tracking
// pixel's identify also uses), a name by a blind index: keyed digests of the prefixes of its words,
// per store. customers/redact erases all three.

export interface CustomerContact {
  name: string | null;
  email: string | null;
}

/** The shortest prefix of a name's word that search finds (shorter words are indexed whole). */
export const MIN_NAME_PREFIX = 3;
const DIGEST_PURPOSE = 'customer-name-search';
const CONTACT_PURPOSE = 'customer-contact';

export function hashEmail(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
}

function contactBinding(storeId: number, platform: string, externalId: string): string {
  return `customer:${storeId}:${platform}:${externalId}`;
}

/** The words of a name, lower-cased, accents removed: "Zoë O'Brien-Smith" -> zoe, o, brien, smith. */
export function nameWords(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

function prefixesOf(word: string): string[] {
  if (word.length <= MIN_NAME_PREFIX) return [word];
  const prefixes: string[] = [];
  for (let length = MIN_NAME_PREFIX; length <= word.length; length += 1) prefixes.push(word.slice(0, length));
  return prefixes;
}

function digestOf(vault: CredentialVault, storeId: number, text: string): string {
  return vault.digest(DIGEST_PURPOSE, `${storeId}\u0000${text}`);
}

/** What a customer row stores for a name and e-mail: the sealed pair, a digest to tell a change, and the name's search digests. */
export interface SealedContact {
  contact_sealed: string;
  contact_digest: string;
  name_search: string[];
}

export function sealContact(storeId: number, platform: string, externalId: string, contact: CustomerContact, vault = contactVault()): SealedContact {
  const name = contact.name?.trim() || null;
  const email = contact.email?.trim() || null;
  const pair = { name: name ?? '', email: email ?? '' };
  return {
    contact_sealed: vault.seal(pair, contactBinding(storeId, platform, externalId)),
    contact_digest: vault.digest(CONTACT_PURPOSE, `${storeId}\u0000${pair.name}\u0000${pair.email}`),
    name_search: [...new Set((name ? nameWords(name) : []).flatMap(prefixesOf))].map((text) => digestOf(vault, storeId, text)),
  };
}

export function openContact(storeId: number, row: { platform: string; external_id: string; contact_sealed: string | null }, vault = contactVault()): CustomerContact {
  if (!row.contact_sealed) return { name: null, email: null };
  const pair = vault.open(row.contact_sealed, contactBinding(storeId, row.platform, row.external_id));
  return { name: pair.name || null, email: pair.email || null };
}

/**
 * How a search text finds customers: an e-mail address by its hash; otherwise every word (or its
 * first letters, at least MIN_NAME_PREFIX of them unless the word is shorter) must start a word of
 * the name. Null when the text has nothing to search by.
 */
export function customerSearch(storeId: number, text: string, vault = contactVault()): { emailHash: string } | { nameDigests: string[] } | null {
  const trimmed = text.trim();
  if (trimmed.includes('@')) return { emailHash: hashEmail(trimmed) };
  const words = nameWords(trimmed);
  if (words.length === 0) return null;
  return { nameDigests: words.map((word) => digestOf(vault, storeId, word)) };
}

/** The SQL condition of a customerSearch on customers `c`, with its parameter at `$index`. */
export function customerSearchSql(search: NonNullable<ReturnType<typeof customerSearch>>, index: number): { sql: string; parameter: string | string[] } {
  return 'emailHash' in search
    ? { sql: `c.email_hash = $${index}`, parameter: search.emailHash }
    : { sql: `c.name_search @> $${index}::text[]`, parameter: search.nameDigests };
}

export function contactVault(): CredentialVault {
  return integrationsSettings().vault;
}
