import { describe, expect, it } from 'vitest';
import { ApiClient, signedInClient, trpcMutation, trpcQuery, useTestApp } from '../../../test/harness.ts';
import { Store } from '../modules/stores/store.entity.ts';
import { NUL_CHARACTER_MESSAGE, pathOfNulCharacter } from './procedures.ts';

const testApp = useTestApp();

// PostgreSQL cannot store U+0000 in text ("invalid byte sequence for encoding UTF8: 0x00"): such input
// used to reach the database and come back as a 500. It is refused for every procedure, both transports.
describe('text with NUL characters', () => {
  it('REST: 400 with the field, nothing stored', async () => {
    const { client, user } = await signedInClient(testApp.app, 'nul');
    const answer = await client.post('/api/stores', { name: 'Shop\u0000name' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ message: NUL_CHARACTER_MESSAGE, errors: [{ field: 'name', message: NUL_CHARACTER_MESSAGE }] });
    expect(await testApp.orm.em.fork().count(Store, { owner: user.id })).toBe(0);

    const contact = await new ApiClient(testApp.app).post('/api/contact', { name: 'Ann', email: 'ann@example.com', message: 'Hello\u0000' });
    expect(contact.status).toBe(400);
    expect(contact.body.errors).toEqual([{ field: 'message', message: NUL_CHARACTER_MESSAGE }]);
  });

  it('tRPC: 400 for a mutation body and for a query input in the URL', async () => {
    const { client } = await signedInClient(testApp.app, 'nultrpc');
    const mutation = await trpcMutation(client, 'stores.create', { name: '\u0000' });
    expect(mutation.status).toBe(400);
    expect(mutation.body.error).toMatchObject({ message: NUL_CHARACTER_MESSAGE, data: { fieldErrors: [{ field: 'name', message: NUL_CHARACTER_MESSAGE }] } });
    const query = await trpcQuery(new ApiClient(testApp.app), 'guests.invitation', { token: 'abc\u0000' });
    expect(query.status).toBe(400);
    expect(query.body.error.message).toBe(NUL_CHARACTER_MESSAGE);
  });

  it('finds the first string or key with U+0000 at any depth, and nothing in clean input', () => {
    expect(pathOfNulCharacter({ lines: [{ title: 'ok' }, { title: 'bad\u0000' }] })).toEqual(['lines', '1', 'title']);
    expect(pathOfNulCharacter({ 'k\u0000': 1 })).toEqual(['k\u0000']);
    expect(pathOfNulCharacter('\u0000')).toEqual([]);
    expect(pathOfNulCharacter({ name: 'fine', n: 3, nested: { list: ['a', 'b'] }, none: null })).toBeNull();
    expect(pathOfNulCharacter(undefined)).toBeNull();
  });
});
