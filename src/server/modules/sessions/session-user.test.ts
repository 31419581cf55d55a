import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signedInClient, useTestApp } from '../../../../test/harness.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';

const testApp = useTestApp();

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the signed-in user comes with the session', () => {
  it('GET /api/user costs one database statement (session and user together)', async () => {
    const { client, user } = await signedInClient(testApp.app);
    // Every statement of node-postgres, whoever sends it (MikroORM, kysely, the session store).
    const statements = vi.spyOn(pg.Client.prototype, 'query');
    const answer = await client.get('/api/user');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: user.id, username: user.username });
    expect(statements).toHaveBeenCalledTimes(1);
  });

  it('shows the user as the database has it at each request, and a removed user is signed out', async () => {
    const { client, user } = await signedInClient(testApp.app);
    const q = sqlRunner(testApp.orm.em.fork());
    await q.run(`update users set username = $2 where id = $1`, [user.id, `${user.username}_b`]);
    expect((await client.get('/api/user')).body).toMatchObject({ username: `${user.username}_b` });
    await q.run(`delete from users where id = $1`, [user.id]);
    expect((await client.get('/api/user')).status).toBe(401);
  });
});
