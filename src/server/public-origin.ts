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

/** Stores the origin unless one is stored already, and answers the stored one (the first, whoever wrote it). */
async function firstSeenOrigin(em: EntityManager, candidate: string | null): Promise<string | null> {
  if (candidate !== null) {
    await em.createQueryBuilder(AppSetting).insert({ key: FIRST_SEEN_ORIGIN_KEY, value: candidate, createdAt: new Date() }).onConflict('key').ignore().execute();
  }
  return (await em.findOne(AppSetting, { key: FIRST_SEEN_ORIGIN_KEY }))?.value ?? null;
}

/**
 * The one answer to "at what address do users reach this app?", for every absolute link that leaves
 * it (password reset and e-mail change links, invitations, OAuth redirect URIs, webhook addresses).
 * A link must never follow the Host header of the request that caused it: whoever sends the request
 * chooses that header, and a reset link mailed to a victim would lead to the sender's site. So:
 * - PUBLIC_URL when set (required in production);
 * - else, with ALLOWED_HOSTS, the request's own origin: the security plugin has refused any other Host;
 * - else the first origin this installation was reached at, stored in the database on first sight and
 *   used from then on, whatever Host later requests carry (a development or test installation).
 */
export function publicOriginResolver(settings: PublicOriginSettings, fork: () => EntityManager): (request: RequestAddress) => Promise<string | null> {
  let stored: string | null = null;
  return async (request) => {
    if (settings.publicUrl) return settings.publicUrl;
    if (settings.allowedHosts) return requestOrigin(request);
    stored ??= await firstSeenOrigin(fork(), requestOrigin(request));
    return stored;
  };
}
