import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AudiencePlatform, AudiencePushInput, AudiencePushView } from '../../../shared/audiences.ts';
import { PLATFORM_NAMES } from '../../../shared/platforms.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError } from '../../connectors/connector.ts';
import type { PlatformHttpOptions } from '../../connectors/http.ts';
import { AppError } from '../../errors.ts';
import { openContact } from '../commerce/customer-contacts.ts';
import { AT_RISK_SQL } from '../loyalty/loyalty.service.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { integrationsSettings, sendIntegrationJob, type IntegrationsSettings } from '../integrations/integrations-runtime.ts';
import { openCredentials } from '../integrations/sealed-credentials.ts';
import { connectorContext } from '../integrations/sync-runner.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { AudiencePush, type AudiencePushEntity } from './audience-push.entity.ts';
import { importChunks, KlaviyoLists, type AudienceProfile } from './klaviyo-lists.ts';
import { MAILCHIMP_BATCH_MAX, MailchimpSegments } from './mailchimp-segments.ts';

// A segment pushed to Klaviyo or Mailchimp (README "Segment push to Klaviyo and Mailchimp"). A request
// records the push (the store's customers among the ids given, fixed then) and queues a job; the job
// sends the customers' e-mail and names in chunks, writing after each chunk how far it got (`cursor`,
// `done`), so a retried job continues after the last confirmed chunk. While a push of a segment is
// queued or running, asking again answers that push; a push after it sends to the same list/segment.

export const AUDIENCE_PUSH_QUEUE = 'audiences.push';
/** Job attempts before a push that keeps failing for a temporary reason is marked failed (pg-boss retryLimit + 1). */
export const AUDIENCE_PUSH_MAX_ATTEMPTS = 5;
export const LIST_NAME_PREFIX = 'StorePulse – ';

/** The segment key of the loyalty screen's at-risk customers table (churn risk ≥ 0.5), pushed like a segment. */
export const AT_RISK_CUSTOMERS_SEGMENT = 'at_risk_customers';

/**
 * The customer ids of a loyalty segment of the store (customer_loyalty, kept by the loyalty job), or
 * of its at-risk customers, best customers first.
 */
export async function segmentCustomerIds(em: EntityManager, storeId: number, segment: string): Promise<number[]> {
  const condition = segment === AT_RISK_CUSTOMERS_SEGMENT ? AT_RISK_SQL : 'l.segment = $2';
  const rows = await sqlRunner(em).rows<{ customer_id: string }>(
    `select l.customer_id::text as customer_id from customer_loyalty l where l.store_id = $1 and ${condition}
      order by l.predicted_value_12m_minor desc nulls last, l.spent_minor desc, l.customer_id`,
    segment === AT_RISK_CUSTOMERS_SEGMENT ? [storeId] : [storeId, segment],
  );
  return rows.map((row) => Number(row.customer_id));
}

function notConnectedMessage(platform: AudiencePlatform): string {
  return `${PLATFORM_NAMES[platform]} is not connected to this store: connect it under Integrations, then push again.`;
}

function view(push: AudiencePushEntity): AudiencePushView {
  return {
    id: push.id,
    platform: push.platform,
    segment: push.segmentKey,
    listName: push.listName,
    status: push.status,
    total: push.total,
    done: push.done,
    progress: push.total > 0 ? Math.min(1, push.done / push.total) : push.status === 'done' ? 1 : 0,
    error: push.error ?? null,
    createdAt: push.createdAt.toISOString(),
    finishedAt: push.finishedAt?.toISOString() ?? null,
  };
}

async function connectionOf(em: EntityManager, storeId: number, platform: AudiencePlatform) {
  const connection = await em.findOne(PlatformConnection, { store: storeId, platform }, { populate: ['store'] });
  return connection && connection.connected && connection.sealedCredentials ? connection : null;
}

async function activePush(em: EntityManager, storeId: number, platform: AudiencePlatform, segment: string) {
  return em.findOne(AudiencePush, { store: storeId, platform, segmentKey: segment, status: { $in: ['queued', 'running'] } });
}

/** The ids among `ids` that are customers of the store, in ascending order (another store's are dropped). */
async function customersOfStore(em: EntityManager, storeId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await sqlRunner(em).rows<{ id: string }>('select id::text from customers where store_id = $1 and id = any($2::bigint[]) order by id', [
    storeId,
    [...new Set(ids)].map(String),
  ]);
  return rows.map((row) => Number(row.id));
}

/**
 * Records a push of `input.customerIds` (or the segment's customers) and queues its job; while a push
 * of the same segment to the same platform is queued or running, answers that one instead.
 */
export async function requestAudiencePush(em: EntityManager, store: Pick<StoreEntity, 'id'>, userId: number | null, input: AudiencePushInput): Promise<AudiencePushView> {
  if (!(await connectionOf(em, store.id, input.platform))) throw new AppError('BAD_REQUEST', notConnectedMessage(input.platform));
  const running = await activePush(em, store.id, input.platform, input.segment);
  if (running) return view(running);
  const wanted = input.customerIds ?? (await segmentCustomerIds(em, store.id, input.segment));
  const customerIds = await customersOfStore(em, store.id, wanted);
  const fork = em.fork();
  const push = fork.create(AudiencePush, {
    store: store.id,
    platform: input.platform,
    segmentKey: input.segment,
    listName: `${LIST_NAME_PREFIX}${input.label}`,
    customerIds,
    total: customerIds.length,
    requestedBy: userId,
  });
  try {
    await fork.flush();
  } catch (error) {
    // Another request of the same segment won the race: answer its push.
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    const other = await activePush(em.fork(), store.id, input.platform, input.segment);
    if (other) return view(other);
    throw error;
  }
  await sendIntegrationJob(AUDIENCE_PUSH_QUEUE, { pushId: push.id }, { singletonKey: `audience-push:${push.id}` });
  return view(push);
}

/** The latest push of each platform and segment of the store (newest first). */
export async function audienceStatus(em: EntityManager, storeId: number, segment?: string): Promise<AudiencePushView[]> {
  const pushes = await em.find(AudiencePush, { store: storeId, ...(segment ? { segmentKey: segment } : {}) }, { orderBy: { id: 'desc' }, limit: 500 });
  const seen = new Set<string>();
  const latest: AudiencePushView[] = [];
  for (const push of pushes) {
    const key = `${push.platform}|${push.segmentKey}`;
    if (seen.has(key)) continue;
    seen.add(key);
    latest.push(view(push));
  }
  return latest;
}

/** "Zoë O'Brien Smith" -> first "Zoë", last "O'Brien Smith". */
export function splitName(name: string | null): { firstName: string | null; lastName: string | null } {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return { firstName: null, lastName: null };
  return { firstName: words[0]!, lastName: words.length > 1 ? words.slice(1).join(' ') : null };
}

/** The push's customers with an e-mail address, opened from their sealed contact, one per address, in id order. */
async function profilesOf(em: EntityManager, storeId: number, customerIds: number[]): Promise<AudienceProfile[]> {
  if (customerIds.length === 0) return [];
  const rows = await sqlRunner(em).rows<{ platform: string; external_id: string; contact_sealed: string | null }>(
    'select platform, external_id, contact_sealed from customers where store_id = $1 and id = any($2::bigint[]) and contact_sealed is not null order by id',
    [storeId, customerIds.map(String)],
  );
  const byEmail = new Map<string, AudienceProfile>();
  for (const row of rows) {
    const contact = openContact(storeId, row);
    const email = contact.email?.trim();
    if (!email || byEmail.has(email.toLowerCase())) continue;
    byEmail.set(email.toLowerCase(), { email, ...splitName(contact.name) });
  }
  return [...byEmail.values()];
}

export interface RunPushOptions {
  settings?: IntegrationsSettings;
  /** PlatformHttp settings (tests: a sleep that only records its waits). */
  http?: Partial<PlatformHttpOptions>;
  /** Profiles per Klaviyo import job (default: the documented 10,000). */
  klaviyoChunk?: number;
}

/** Whether an error will happen again however often the job is retried. */
function isPermanent(error: unknown): boolean {
  if (error instanceof ConnectorAuthError || error instanceof AppError) return true;
  if (error instanceof ConnectorRequestError) return error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
  return false;
}

function messageOf(error: unknown): string {
  if (error instanceof ConnectorAuthError) return error.reason;
  if (error instanceof ConnectorRequestError || error instanceof MalformedResponseError) return error.detail;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The job: runs the push from where it got to. A permanent failure (refused key, missing scope, no
 * audience) or the last attempt marks it failed with the reason; a temporary one is thrown for pg-boss
 * to retry with backoff (the platform's own 429s are waited out inside each request first).
 */
export async function runAudiencePush(em: EntityManager, pushId: number, options: RunPushOptions = {}): Promise<AudiencePushEntity> {
  const push = await em.findOneOrFail(AudiencePush, pushId, { populate: ['store'] });
  if (push.status === 'done' || push.status === 'failed') return push;
  push.status = 'running';
  push.startedAt ??= new Date();
  push.attempts += 1;
  await em.flush();
  try {
    await sendPush(em, push, options);
    push.status = 'done';
    push.error = null;
    push.finishedAt = new Date();
    await em.flush();
    return push;
  } catch (error) {
    push.error = messageOf(error);
    if (isPermanent(error) || push.attempts >= AUDIENCE_PUSH_MAX_ATTEMPTS) {
      push.status = 'failed';
      push.finishedAt = new Date();
      await em.flush();
      return push;
    }
    await em.flush();
    throw error;
  }
}

async function sendPush(em: EntityManager, push: AudiencePushEntity, options: RunPushOptions): Promise<void> {
  const settings = options.settings ?? integrationsSettings();
  const connection = await connectionOf(em, push.store.id, push.platform);
  if (!connection) throw new AppError('BAD_REQUEST', notConnectedMessage(push.platform));
  const credentials = openCredentials(settings, connection);
  if (!credentials) throw new AppError('BAD_REQUEST', notConnectedMessage(push.platform));
  const ctx = connectorContext(settings, push.platform, credentials, push.store, options.http);
  const profiles = await profilesOf(em, push.store.id, push.customerIds);
  push.total = profiles.length;
  await em.flush();
  if (push.platform === 'klaviyo') await pushToKlaviyo(em, push, new KlaviyoLists(ctx), profiles, options.klaviyoChunk);
  else await pushToMailchimp(em, push, new MailchimpSegments(ctx), profiles);
}

async function pushToKlaviyo(em: EntityManager, push: AudiencePushEntity, lists: KlaviyoLists, profiles: AudienceProfile[], chunkSize?: number): Promise<void> {
  push.platformListId ??= await lists.findOrCreateList(push.listName);
  await em.flush();
  while (push.cursor < profiles.length) {
    const chunk = importChunks(profiles.slice(push.cursor), chunkSize)[0]!;
    // A job sent by an earlier attempt is waited for, not sent again.
    push.platformJobId ??= await lists.startImport(push.platformListId, chunk);
    await em.flush();
    const base = push.cursor;
    await lists.waitForImport(push.platformJobId, async (job) => {
      push.done = base + Math.min(chunk.length, job.attributes.completed_count ?? 0);
      await em.flush();
    });
    push.cursor = base + chunk.length;
    push.done = push.cursor;
    push.platformJobId = null;
    await em.flush();
  }
  // Those who left the segment since an earlier push are taken off the list (not unsubscribed).
  const wanted = new Set(profiles.map((profile) => profile.email.toLowerCase()));
  const members = await lists.listMembers(push.platformListId);
  await lists.removeFromList(push.platformListId, [...members].filter(([email]) => !wanted.has(email)).map(([, id]) => id));
}

async function pushToMailchimp(em: EntityManager, push: AudiencePushEntity, mailchimp: MailchimpSegments, profiles: AudienceProfile[]): Promise<void> {
  push.platformListId ??= await mailchimp.defaultAudience();
  await em.flush();
  while (push.cursor < profiles.length) {
    const chunk = profiles.slice(push.cursor, push.cursor + MAILCHIMP_BATCH_MAX);
    const { refused } = await mailchimp.addMembers(push.platformListId, chunk);
    if (refused > 0) push.error = `Mailchimp refused ${refused} address(es) (invalid or previously cleaned).`;
    push.cursor += chunk.length;
    push.done = push.cursor;
    await em.flush();
  }
  // The segment of an earlier push of this segment, so a re-push replaces its membership.
  const earlier = push.platformSegmentId
    ? null
    : await em.findOne(
        AudiencePush,
        { store: push.store.id, platform: 'mailchimp', segmentKey: push.segmentKey, platformSegmentId: { $ne: null }, id: { $ne: push.id } },
        { orderBy: { id: 'desc' } },
      );
  push.platformSegmentId = await mailchimp.findOrCreateSegment(push.platformListId, push.listName, push.platformSegmentId ?? earlier?.platformSegmentId ?? null);
  await em.flush();
  const wanted = new Set(profiles.map((profile) => profile.email.toLowerCase()));
  const current = await mailchimp.segmentEmails(push.platformListId, push.platformSegmentId);
  const toAdd = [...wanted].filter((email) => !current.has(email));
  const toRemove = [...current].filter((email) => !wanted.has(email));
  for (let start = 0; start < Math.max(toAdd.length, toRemove.length); start += MAILCHIMP_BATCH_MAX) {
    await mailchimp.updateSegment(push.platformListId, push.platformSegmentId, toAdd.slice(start, start + MAILCHIMP_BATCH_MAX), toRemove.slice(start, start + MAILCHIMP_BATCH_MAX));
  }
}
