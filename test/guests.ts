import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { OutboundEmail } from '../src/server/modules/email/outbound-email.entity.ts';
import { ApiClient, grantTestPlan, signedInClient, uniqueUser } from './harness.ts';

/** The token of the latest invitation e-mailed to this address, read from the link in the outbox. */
export async function invitationTokenFor(orm: MikroORM, email: string): Promise<string> {
  const sent = await orm.em.fork().findOne(OutboundEmail, { toAddress: email.toLowerCase(), template: 'guest_invitation' }, { orderBy: { id: 'desc' } });
  const token = /\/accept-invite\?token=([A-Za-z0-9_-]+)/.exec(sent?.textBody ?? '')?.[1];
  if (!token) throw new Error(`No invitation e-mail to ${email}`);
  return token;
}

/** A signed-in owner on a plan with tools, with one store. */
export async function ownerWithStore(app: FastifyInstance, orm: MikroORM, storeName = 'Shared Shop', tier: 'basic' | 'professional' = 'professional') {
  const owner = await signedInClient(app, 'owner');
  await grantTestPlan(orm, owner.credentials.username, tier);
  const created = await owner.client.post('/api/stores', { name: storeName });
  expect(created.status).toBe(201);
  return { ...owner, store: created.body as { id: number; name: string } };
}

/** The owner invites a brand-new address; that person registers with it and accepts. */
export async function newGuestOf(app: FastifyInstance, orm: MikroORM, owner: { client: ApiClient }, storeId: number) {
  const credentials = uniqueUser('guest');
  const invited = await owner.client.post('/api/guests/invitations', { storeId, email: credentials.email });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const token = await invitationTokenFor(orm, credentials.email);
  const client = new ApiClient(app);
  const registered = await client.post('/api/register', credentials);
  expect(registered.status).toBe(201);
  const accepted = await client.post(`/api/invitations/${token}/accept`);
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  return { client, credentials, token, user: registered.body as { id: number; username: string } };
}
