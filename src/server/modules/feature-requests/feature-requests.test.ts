import { describe, expect, it } from 'vitest';
import { ApiClient, signedInAdmin, signedInClient, useTestApp } from '../../../../test/harness.ts';
import { FeatureRequestVote } from './feature-request.entity.ts';

const testApp = useTestApp();

const DESCRIPTION = 'Show refunds on the day the order was placed, as an option.';

interface Item {
  id: number;
  title: string;
  status: string;
  votes: number;
  hasVoted: boolean;
  isMine: boolean;
  author: string;
}

async function propose(client: ApiClient, title: string, description = DESCRIPTION): Promise<Item> {
  const answer = await client.post('/api/feature-requests', { title, description });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

async function listed(client: ApiClient, query = ''): Promise<Item[]> {
  const answer = await client.get(`/api/feature-requests${query}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

function find(items: Item[], id: number): Item {
  const item = items.find((candidate) => candidate.id === id);
  if (!item) throw new Error(`Request ${id} is not listed`);
  return item;
}

describe('creating requests', () => {
  it('answers 201 with the request, counting the author as its first vote', async () => {
    const { client, user } = await signedInClient(testApp.app, 'author');
    const created = await client.post('/api/feature-requests', { title: '  TikTok Shop connector ', description: DESCRIPTION });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      title: 'TikTok Shop connector',
      description: DESCRIPTION,
      status: 'open',
      createdAt: expect.any(String),
      author: user.username,
      votes: 1,
      hasVoted: true,
      isMine: true,
    });
    expect(find(await listed(client), created.body.id)).toEqual(created.body);

    const { client: other } = await signedInClient(testApp.app, 'reader');
    expect(find(await listed(other), created.body.id)).toMatchObject({ votes: 1, hasVoted: false, isMine: false, author: user.username });
  });

  it.each([
    [{ title: '', description: DESCRIPTION }, 'title', 'Title is required'],
    [{ description: DESCRIPTION }, 'title', 'Title is required'],
    [{ title: 'Abc ', description: DESCRIPTION }, 'title', 'Title must be at least 5 characters'],
    [{ title: 'T'.repeat(121), description: DESCRIPTION }, 'title', 'Title must be at most 120 characters'],
    [{ title: 'Valid title' }, 'description', 'Description is required'],
    [{ title: 'Valid title', description: 'Too short' }, 'description', 'Description must be at least 10 characters'],
    [{ title: 'Valid title', description: 'd'.repeat(5001) }, 'description', 'Description must be at most 5,000 characters'],
  ])('refuses %j with 400 and the field message', async (body, field, message) => {
    const { client } = await signedInClient(testApp.app, 'invalid');
    const answer = await client.post('/api/feature-requests', body);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(message);
    expect(answer.body.errors).toContainEqual({ field, message });
    expect((await listed(client)).filter((item) => item.isMine)).toEqual([]);
  });

  it('needs an account', async () => {
    const visitor = new ApiClient(testApp.app);
    expect((await visitor.post('/api/feature-requests', { title: 'Anonymous idea', description: DESCRIPTION })).status).toBe(401);
    expect((await visitor.get('/api/feature-requests')).status).toBe(401);
  });
});

describe('voting', () => {
  it('counts one vote per user, idempotently, and another user does not change yours', async () => {
    const { client: author } = await signedInClient(testApp.app, 'votee');
    const { client: alice } = await signedInClient(testApp.app, 'alice');
    const { client: bob } = await signedInClient(testApp.app, 'bob');
    const request = await propose(author, 'Klaviyo flows report');

    const first = await alice.post(`/api/feature-requests/${request.id}/vote`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: request.id, votes: 2, hasVoted: true, isMine: false });
    const again = await alice.post(`/api/feature-requests/${request.id}/vote`);
    expect(again.body).toMatchObject({ votes: 2, hasVoted: true });

    expect(find(await listed(bob), request.id)).toMatchObject({ votes: 2, hasVoted: false });
    expect((await bob.post(`/api/feature-requests/${request.id}/vote`)).body).toMatchObject({ votes: 3, hasVoted: true });
    expect(find(await listed(alice), request.id)).toMatchObject({ votes: 3, hasVoted: true });

    const taken = await bob.delete(`/api/feature-requests/${request.id}/vote`);
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ votes: 2, hasVoted: false });
    expect((await bob.delete(`/api/feature-requests/${request.id}/vote`)).body).toMatchObject({ votes: 2, hasVoted: false });
    expect(find(await listed(alice), request.id)).toMatchObject({ votes: 2, hasVoted: true });
    expect(find(await listed(author), request.id)).toMatchObject({ votes: 2, hasVoted: true, isMine: true });

    const votes = await testApp.orm.em.fork().count(FeatureRequestVote, { featureRequest: request.id });
    expect(votes).toBe(2);
  });

  it('the author may take back their own vote', async () => {
    const { client: author } = await signedInClient(testApp.app, 'modest');
    const request = await propose(author, 'Dark mode for reports');
    expect((await author.delete(`/api/feature-requests/${request.id}/vote`)).body).toMatchObject({ votes: 0, hasVoted: false, isMine: true });
  });

  it('concurrent votes of one user still count once', async () => {
    const { client: author } = await signedInClient(testApp.app, 'race');
    const { client: voter } = await signedInClient(testApp.app, 'racer');
    const request = await propose(author, 'Faster sync');
    const answers = await Promise.all(Array.from({ length: 5 }, () => voter.post(`/api/feature-requests/${request.id}/vote`)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(find(await listed(author), request.id).votes).toBe(2);
  });

  it('unknown ids are 404 and malformed ids 400', async () => {
    const { client } = await signedInClient(testApp.app, 'lost');
    for (const answer of [await client.post('/api/feature-requests/99999999/vote'), await client.delete('/api/feature-requests/99999999/vote')]) {
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ message: 'Feature request not found' });
    }
    expect((await client.post('/api/feature-requests/abc/vote')).status).toBe(400);
  });
});

describe('listing', () => {
  it('top puts the most votes first (newest first among equals); new is newest first', async () => {
    const { client: author } = await signedInClient(testApp.app, 'lister');
    const voters = await Promise.all([signedInClient(testApp.app, 'v1'), signedInClient(testApp.app, 'v2')]);
    const older = await propose(author, 'Older popular idea');
    const middle = await propose(author, 'Middle idea, one vote');
    const newest = await propose(author, 'Newest idea, one vote');
    for (const { client } of voters) await client.post(`/api/feature-requests/${older.id}/vote`);

    const mine = (items: Item[]) => items.filter((item) => [older.id, middle.id, newest.id].includes(item.id)).map((item) => item.id);
    expect(mine(await listed(author))).toEqual([older.id, newest.id, middle.id]);
    expect(mine(await listed(author, '?sort=top'))).toEqual([older.id, newest.id, middle.id]);
    expect(mine(await listed(author, '?sort=new'))).toEqual([newest.id, middle.id, older.id]);
    expect((await author.get('/api/feature-requests?sort=best')).status).toBe(400);
  });
});

describe('status (admin)', () => {
  it('an admin sets the status; the list filters by it; users may not', async () => {
    const { client: author } = await signedInClient(testApp.app, 'statused');
    const { client: admin } = await signedInAdmin(testApp.app, testApp.orm);
    const request = await propose(author, 'Shopping feed optimiser');

    const refused = await author.patch(`/api/feature-requests/${request.id}`, { status: 'done' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'Administrator access required' });

    const planned = await admin.patch(`/api/feature-requests/${request.id}`, { status: 'planned' });
    expect(planned.status).toBe(200);
    expect(planned.body).toMatchObject({ id: request.id, status: 'planned', votes: 1, hasVoted: false, isMine: false });

    const onlyPlanned = await listed(author, '?status=planned');
    expect(onlyPlanned.map((item) => item.id)).toContain(request.id);
    expect(onlyPlanned.every((item) => item.status === 'planned')).toBe(true);
    expect((await listed(author, '?status=open')).map((item) => item.id)).not.toContain(request.id);

    const invalid = await admin.patch(`/api/feature-requests/${request.id}`, { status: 'shipped' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toBe('Status must be one of open, planned, in_progress, done, declined');
    const missing = await admin.patch('/api/feature-requests/99999999', { status: 'done' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Feature request not found' });
  });
});

describe('guest mode', () => {
  it('an admin viewing as a user sees their votes but cannot create or vote', async () => {
    const { client: viewed, user } = await signedInClient(testApp.app, 'viewed');
    const request = await propose(viewed, 'Viewed user idea');
    const { client: admin } = await signedInAdmin(testApp.app, testApp.orm);
    expect((await admin.post('/api/admin/enter-guest-mode', { userId: user.id })).status).toBe(200);

    expect(find(await listed(admin), request.id)).toMatchObject({ hasVoted: true, isMine: true });
    const create = await admin.post('/api/feature-requests', { title: 'Admin as guest', description: DESCRIPTION });
    expect(create.status).toBe(403);
    expect(create.body).toEqual({ message: 'Guest mode is read-only' });
    expect((await admin.delete(`/api/feature-requests/${request.id}/vote`)).status).toBe(403);
    expect(find(await listed(viewed), request.id)).toMatchObject({ votes: 1, hasVoted: true });
  });
});
