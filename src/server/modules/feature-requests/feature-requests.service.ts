import type { EntityManager } from '@mikro-orm/postgresql';
import {
  FEATURE_REQUEST_NOT_FOUND_MESSAGE,
  type CreateFeatureRequestInput,
  type FeatureRequestDto,
  type FeatureRequestSort,
  type FeatureRequestStatus,
} from '../../../shared/feature-requests.ts';
import { AppError } from '../../errors.ts';
import type { UserEntity } from '../users/user.entity.ts';
import { FeatureRequest, FeatureRequestVote } from './feature-request.entity.ts';

interface FeatureRequestRow {
  id: number;
  title: string;
  description: string;
  status: FeatureRequestStatus;
  created_at: Date | string;
  author_id: number;
  author: string;
  votes: number;
  has_voted: boolean;
}

const ORDER_BY: Record<FeatureRequestSort, string> = {
  top: 'votes desc, fr.created_at desc, fr.id desc',
  new: 'fr.created_at desc, fr.id desc',
};

/** Requests with their vote counts, seen by `viewerId` (hasVoted, isMine), in one query. */
async function selectRequests(
  em: EntityManager,
  viewerId: number | null,
  options: { id?: number; status?: FeatureRequestStatus | undefined; sort: FeatureRequestSort },
): Promise<FeatureRequestDto[]> {
  const conditions: string[] = [];
  const params: unknown[] = [viewerId];
  if (options.id !== undefined) {
    conditions.push('fr.id = ?');
    params.push(options.id);
  }
  if (options.status !== undefined) {
    conditions.push('fr.status = ?');
    params.push(options.status);
  }
  const rows = await em.getConnection().execute<FeatureRequestRow[]>(
    `select fr.id, fr.title, fr.description, fr.status, fr.created_at, fr.author_id, u.username as author,
            (select count(*) from feature_request_votes v where v.feature_request_id = fr.id)::int as votes,
            exists (select 1 from feature_request_votes v where v.feature_request_id = fr.id and v.user_id = ?) as has_voted
       from feature_requests fr
       join users u on u.id = fr.author_id
      ${conditions.length > 0 ? `where ${conditions.join(' and ')}` : ''}
      order by ${ORDER_BY[options.sort]}`,
    params,
  );
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    author: row.author,
    votes: row.votes,
    hasVoted: row.has_voted,
    isMine: row.author_id === viewerId,
  }));
}

export function listFeatureRequests(
  em: EntityManager,
  viewer: UserEntity,
  filter: { status?: FeatureRequestStatus | undefined; sort: FeatureRequestSort },
): Promise<FeatureRequestDto[]> {
  return selectRequests(em, viewer.id, filter);
}

export async function featureRequestFor(em: EntityManager, viewer: UserEntity, id: number): Promise<FeatureRequestDto> {
  const [request] = await selectRequests(em, viewer.id, { id, sort: 'new' });
  if (!request) throw new AppError('NOT_FOUND', FEATURE_REQUEST_NOT_FOUND_MESSAGE);
  return request;
}

/** A new request starts with one vote: its author's. */
export async function createFeatureRequest(
  em: EntityManager,
  author: UserEntity,
  input: CreateFeatureRequestInput,
): Promise<FeatureRequestDto> {
  const request = await em.transactional(async (tx) => {
    const created = tx.create(FeatureRequest, { author: author.id, title: input.title, description: input.description, status: 'open' });
    tx.create(FeatureRequestVote, { featureRequest: created, user: author.id });
    await tx.flush();
    return created;
  });
  return featureRequestFor(em, author, request.id);
}

async function assertExists(em: EntityManager, id: number): Promise<void> {
  if ((await em.count(FeatureRequest, { id })) === 0) throw new AppError('NOT_FOUND', FEATURE_REQUEST_NOT_FOUND_MESSAGE);
}

/** One vote per user and request; voting again changes nothing. */
export async function voteForFeatureRequest(em: EntityManager, voter: UserEntity, id: number): Promise<FeatureRequestDto> {
  await assertExists(em, id);
  await em.getConnection().execute(
    `insert into feature_request_votes (feature_request_id, user_id, created_at) values (?, ?, now())
     on conflict (feature_request_id, user_id) do nothing`,
    [id, voter.id],
    'run',
  );
  return featureRequestFor(em, voter, id);
}

/** Takes the user's vote back, if there was one (the author may take back theirs too). */
export async function unvoteFeatureRequest(em: EntityManager, voter: UserEntity, id: number): Promise<FeatureRequestDto> {
  await assertExists(em, id);
  await em.getConnection().execute(
    'delete from feature_request_votes where feature_request_id = ? and user_id = ?',
    [id, voter.id],
    'run',
  );
  return featureRequestFor(em, voter, id);
}

/** `viewerId`: whose votes hasVoted and isMine describe (null for the admin CLI). */
export async function setFeatureRequestStatus(
  em: EntityManager,
  viewerId: number | null,
  id: number,
  status: FeatureRequestStatus,
): Promise<FeatureRequestDto> {
  const request = await em.findOne(FeatureRequest, { id });
  if (!request) throw new AppError('NOT_FOUND', FEATURE_REQUEST_NOT_FOUND_MESSAGE);
  request.status = status;
  await em.flush();
  const [updated] = await selectRequests(em, viewerId, { id, sort: 'new' });
  return updated!;
}
