import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, createTestApp, GENEROUS_AUTH_LIMITS, testServices, uniqueUser, useTestDatabase } from '../../../../test/harness.ts';
import { DEFAULT_AUTH_RATE_LIMITS } from './attempt-limiter.ts';

// Failed sign-ins count per (username, client address), 5 per 15 minutes, so that a guesser cannot
// lock the owner out from elsewhere; all addresses together count against a slower backstop per
// username (50 per hour by default), so that guessing spread over many addresses stops too.

const database = useTestDatabase();
let app: FastifyInstance;
let backstopped: FastifyInstance;

beforeAll(async () => {
  app = await createTestApp(database.orm, testServices(DEFAULT_AUTH_RATE_LIMITS));
  // The backstop made small enough to reach: 4 failures per username from all addresses, per hour.
  backstopped = await createTestApp(database.orm, testServices({ ...GENEROUS_AUTH_LIMITS, loginFailuresPerUsernameAndIp: { max: 5, windowMs: 15 * 60_000 }, loginFailuresPerUsername: { max: 4, windowMs: 60 * 60_000 } }));
});
afterAll(async () => {
  await app?.close();
  await backstopped?.close();
});

async function registered(on: FastifyInstance, prefix: string) {
  const credentials = uniqueUser(prefix);
  expect((await new ApiClient(on, { remoteAddress: '192.0.2.1' }).post('/api/register', credentials)).status).toBe(201);
  return credentials;
}

const signIn = (on: FastifyInstance, from: string, username: string, password: string) =>
  new ApiClient(on, { remoteAddress: from }).post('/api/login', { username, password });

describe('failed sign-ins', () => {
  it('lock out the guessing address after 5, while the owner signs in from their own address', async () => {
    const owner = await registered(app, 'owner');
    for (let i = 1; i <= 5; i += 1) expect((await signIn(app, '198.51.100.66', owner.username, `guess-number-${i}`)).status).toBe(401);
    const sixth = await signIn(app, '198.51.100.66', owner.username, owner.password);
    expect(sixth.status).toBe(429);
    expect(sixth.body.message).toBe('Too many failed sign-in attempts. Please try again in 15 minutes.');
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(14 * 60);

    const ownSignIn = await signIn(app, '203.0.113.7', owner.username, owner.password);
    expect(ownSignIn.status).toBe(200);
  });

  it('from one address are counted even when they arrive all at once: 5 of 8 concurrent guesses are checked, 3 refused', async () => {
    const owner = await registered(app, 'burst');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => signIn(app, '198.51.100.67', owner.username, `burst-guess-${i}`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
  });

  it('are forgotten for the address after a successful sign-in there', async () => {
    const owner = await registered(app, 'typo');
    for (let i = 1; i <= 4; i += 1) expect((await signIn(app, '203.0.113.8', owner.username, `typo-${i}`)).status).toBe(401);
    expect((await signIn(app, '203.0.113.8', owner.username, owner.password)).status).toBe(200);
    // 4 failures, then a success: the count starts again, so 5 more failures are answered 401.
    for (let i = 5; i <= 9; i += 1) expect((await signIn(app, '203.0.113.8', owner.username, `typo-${i}`)).status).toBe(401);
    expect((await signIn(app, '203.0.113.8', owner.username, owner.password)).status).toBe(429);
  });

  it('from many addresses stop at the per-username backstop, which then refuses every address for the hour', async () => {
    const owner = await registered(backstopped, 'spread');
    // One failure from each of 4 addresses: the backstop's 4 per hour are used up.
    for (let i = 1; i <= 4; i += 1) expect((await signIn(backstopped, `198.51.100.${100 + i}`, owner.username, `spread-guess-${i}`)).status).toBe(401);
    const fifth = await signIn(backstopped, '198.51.100.105', owner.username, 'spread-guess-5');
    expect(fifth.status).toBe(429);
    expect(fifth.body.message).toBe('Too many failed sign-in attempts for this account. Please try again in 60 minutes.');
    expect(Number(fifth.headers['retry-after'])).toBeGreaterThan(59 * 60);
    // The price of the backstop: the owner waits too (README, "Rate limits").
    expect((await signIn(backstopped, '203.0.113.9', owner.username, owner.password)).status).toBe(429);
    // Another username is not affected.
    const other = await registered(backstopped, 'bystander');
    expect((await signIn(backstopped, '198.51.100.101', other.username, other.password)).status).toBe(200);
  });
});
