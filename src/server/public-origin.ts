import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyRequest } from 'fastify';
import { AppSetting } from './modules/settings/app-setting.entity.ts';

export interface PublicOriginSettings {
  /** PUBLIC_URL, without a trailing slash. */
  publicUrl: string | undefined;
  /** ALLOWED_HOSTS: the only Host values the server answers (checked by plugins/security.ts). */
  allowedHosts: readonly string[] | undefined;
}

const FIRST_SEEN_ORIGIN_KEY = 'public_origin';
/** A host name or address with an optional port: nothing that would turn "evil.test/x" or "a@b" into an origin. */
const HOST_PATTERN = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

type RequestAddress = Pick<FastifyRequest, 'protocol' | 'host'>;

/** scheme://host[:port] the request was addressed to, or null when its Host header is not a host name. */
export function requestOrigin(request: RequestAddress): string | null {
  if (!HOST_PATTERN.test(request.host)) return null;
  const candidate = `${request.protocol}://${request.host}`;
  return URL.canParse(candidate) ? new URL(candidate).origin : null;
}

/** ALLOWED_HOSTS: an entry with a port allows exactly that host and port, one without allows the host on any port. */
export function isAllowedHost(host: string, allowedHosts: readonly string[]): boolean {
  if (!HOST_PATTERN.test(host) || !URL.canParse(`http://${host}`)) return false;
  const url = new URL(`http://${host}`);
  return allowedHosts.some((entry) => {
    const allowed = new URL(`http://${entry}`);
    return allowed.hostname === url.hostname && (allowed.port === '' || allowed.port === url.port);
  });
}

/** Stores the origin unless one is stored already; true when this call stored it. */
async function storeFirstOrigin(em: EntityManager, candidate: string): Promise<boolean> {
  const inserted = await em.createQueryBuilder(AppSetting).insert({ key: FIRST_SEEN_ORIGIN_KEY, value: candidate, createdAt: new Date() }).onConflict('key').ignore().execute('run');
  return (inserted.affectedRows ?? 0) > 0;
}

/** The first origin stored, or null while there is none. */
export async function storedOrigin(em: EntityManager): Promise<string | null> {
  return (await em.findOne(AppSetting, { key: FIRST_SEEN_ORIGIN_KEY }))?.value ?? null;
}

export interface PublicOriginResolver {
  /** The origin links use for this request (never written by it). */
  resolve(request: RequestAddress): Promise<string | null>;
  /**
   * Called once someone has registered or signed in through `request`: without PUBLIC_URL and
   * ALLOWED_HOSTS, the first such request's origin becomes the installation's (logged as a warning).
   */
  remember(request: RequestAddress & Pick<FastifyRequest, 'log'>): Promise<void>;
}

/**
 * The one answer to "at what address do users reach this app?", for every absolute link that leaves
 * it (password reset and e-mail change links, invitations, OAuth redirect URIs, webhook addresses).
 * A link must never follow the Host header of the request that caused it: whoever sends the request
 * chooses that header, and a reset link mailed to a victim would lead to the sender's site. So:
 * - PUBLIC_URL when set (required in production);
 * - else, with ALLOWED_HOSTS, the request's own origin: the security plugin has refused any other Host;
 * - else the origin of the first successful registration or sign-in, stored in the database and used
 *   from then on, whatever Host later requests carry (a development or test installation). Any other
 *   request stores nothing: a stranger's first request (a scanner, a forged Host on /api/user) must
 *   not choose where the owner's links lead. Before anyone has signed in there is no origin and links
 *   are written relative.
 */
export function publicOriginResolver(settings: PublicOriginSettings, fork: () => EntityManager): PublicOriginResolver {
  let stored: string | null = null;
  const configured = (request: RequestAddress) => (settings.publicUrl ? settings.publicUrl : settings.allowedHosts ? requestOrigin(request) : undefined);
  return {
    async resolve(request) {
      const fixed = configured(request);
      if (fixed !== undefined) return fixed;
      stored ??= await storedOrigin(fork());
      return stored;
    },
    async remember(request) {
      if (configured(request) !== undefined || stored !== null) return;
      const candidate = requestOrigin(request);
      if (candidate === null) return;
      if (await storeFirstOrigin(fork(), candidate)) {
        request.log.warn(`PUBLIC_URL is not set: links in e-mails and OAuth redirects will use ${candidate}, the address of the first sign-in. Set PUBLIC_URL to choose it.`);
      }
      stored = await storedOrigin(fork());
    },
  };
}
