import { describe, expect, it } from 'vitest';
import { ApiClient, signedInAdmin, signedInClient, useTestApp } from '../../../../test/harness.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';
import { ContactMessage } from './contact-message.entity.ts';

const testApp = useTestApp();

// The contact limiter counts per client IP for the whole process: each test sends from its own address.
let addressCounter = 0;
function clientFromNewAddress(): ApiClient {
  addressCounter += 1;
  return new ApiClient(testApp.app, { remoteAddress: `10.20.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}` });
}

const MESSAGE = 'My Shopify orders from yesterday are missing on the dashboard.';

async function storedMessagesFrom(email: string) {
  return testApp.orm.em.fork().find(ContactMessage, { email }, { orderBy: { id: 'asc' } });
}

describe('POST /api/contact', () => {
  it('stores the message of a signed-out visitor and e-mails a confirmation to the sender', async () => {
    const client = clientFromNewAddress();
    const answer = await client.post('/api/contact', { name: '  Dana Shopper ', email: 'dana@example.com', message: MESSAGE });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true });

    const [stored, ...others] = await storedMessagesFrom('dana@example.com');
    expect(others).toHaveLength(0);
    expect(stored).toMatchObject({ userId: null, name: 'Dana Shopper', email: 'dana@example.com', message: MESSAGE, status: 'new' });

    const emails = await testApp.orm.em.fork().find(OutboundEmail, { toAddress: 'dana@example.com' });
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({ template: 'contact_confirmation', subject: 'We received your message', status: 'logged' });
    expect(emails[0]!.textBody).toContain('Hello Dana Shopper,');
    expect(emails[0]!.textBody).toContain(MESSAGE);
  });

  it('links the message to the signed-in account', async () => {
    const { client, user, credentials } = await signedInClient(testApp.app, 'contact');
    client.remoteAddress = '10.30.0.1';
    expect((await client.post('/api/contact', { name: 'Account holder', email: credentials.email, message: MESSAGE })).status).toBe(200);
    const [stored] = await storedMessagesFrom(credentials.email);
    expect(stored?.userId).toBe(user.id);
    const [email] = await testApp.orm.em.fork().find(OutboundEmail, { toAddress: credentials.email, template: 'contact_confirmation' });
    expect(email?.userId).toBe(user.id);
  });

  it.each([
    [{ name: '', email: 'x@example.com', message: MESSAGE }, 'name', 'Name is required'],
    [{ name: '   ', email: 'x@example.com', message: MESSAGE }, 'name', 'Name is required'],
    [{ email: 'x@example.com', message: MESSAGE }, 'name', 'Name is required'],
    [{ name: 'N'.repeat(101), email: 'x@example.com', message: MESSAGE }, 'name', 'Name must be at most 100 characters'],
    [{ name: 'Nia', email: 'not-an-address', message: MESSAGE }, 'email', 'Enter a valid email address'],
    [{ name: 'Nia', email: '', message: MESSAGE }, 'email', 'Enter a valid email address'],
    [{ name: 'Nia', email: 'x@example.com', message: '' }, 'message', 'Message is required'],
    [{ name: 'Nia', email: 'x@example.com', message: 'Too short' }, 'message', 'Message must be at least 10 characters'],
    [{ name: 'Nia', email: 'x@example.com', message: 'm'.repeat(5001) }, 'message', 'Message must be at most 5,000 characters'],
  ])('refuses %j with 400 and the field message', async (body, field, message) => {
    const client = clientFromNewAddress();
    const answer = await client.post('/api/contact', body);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(message);
    expect(answer.body.errors).toContainEqual({ field, message });
    expect(await testApp.orm.em.fork().count(ContactMessage, { name: 'Nia' })).toBe(0);
  });

  it('accepts five messages an hour from one network, then answers 429 with Retry-After', async () => {
    const client = clientFromNewAddress();
    for (let i = 1; i <= 5; i += 1) {
      expect((await client.post('/api/contact', { name: 'Busy', email: 'busy@example.com', message: `${MESSAGE} #${i}` })).status).toBe(200);
    }
    const refused = await client.post('/api/contact', { name: 'Busy', email: 'busy@example.com', message: `${MESSAGE} #6` });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'Too many messages from this network. Please try again in 60 minutes.' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
    expect(await storedMessagesFrom('busy@example.com')).toHaveLength(5);

    // Another network is not affected.
    const other = clientFromNewAddress();
    expect((await other.post('/api/contact', { name: 'Calm', email: 'calm@example.com', message: MESSAGE })).status).toBe(200);
  });

  it('invalid submissions do not use up the allowance', async () => {
    const client = clientFromNewAddress();
    for (let i = 0; i < 6; i += 1) expect((await client.post('/api/contact', { name: '', email: 'x', message: '' })).status).toBe(400);
    expect((await client.post('/api/contact', { name: 'Later', email: 'later@example.com', message: MESSAGE })).status).toBe(200);
  });
});

describe('admin: contact messages', () => {
  it('lists messages newest first, filters by status and changes a status', async () => {
    const sender = clientFromNewAddress();
    for (const name of ['First sender', 'Second sender']) {
      expect((await sender.post('/api/contact', { name, email: 'queue@example.com', message: MESSAGE })).status).toBe(200);
    }
    const { client: admin } = await signedInAdmin(testApp.app, testApp.orm);
    const listed = await admin.get('/api/admin/contact-messages');
    expect(listed.status).toBe(200);
    const queue = listed.body.filter((row: { email: string }) => row.email === 'queue@example.com');
    expect(queue.map((row: { name: string }) => row.name)).toEqual(['Second sender', 'First sender']);
    expect(queue[0]).toMatchObject({ status: 'new', message: MESSAGE, userId: null, createdAt: expect.any(String) });

    const answered = await admin.patch(`/api/admin/contact-messages/${queue[1].id}`, { status: 'answered' });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ id: queue[1].id, status: 'answered', name: 'First sender' });

    const onlyAnswered = (await admin.get('/api/admin/contact-messages?status=answered')).body;
    expect(onlyAnswered.map((row: { id: number }) => row.id)).toEqual([queue[1].id]);
    const stillNew = (await admin.get('/api/admin/contact-messages?status=new')).body;
    expect(stillNew.map((row: { id: number }) => row.id)).toContain(queue[0].id);
    expect(stillNew.map((row: { id: number }) => row.id)).not.toContain(queue[1].id);

    const badStatus = await admin.patch(`/api/admin/contact-messages/${queue[0].id}`, { status: 'spam' });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.message).toBe('Status must be one of new, answered, closed');
    const missing = await admin.patch('/api/admin/contact-messages/99999999', { status: 'closed' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Message not found' });
  });

  it('is refused to users (403) and to visitors (401)', async () => {
    const { client } = await signedInClient(testApp.app, 'notadmin');
    expect((await client.get('/api/admin/contact-messages')).status).toBe(403);
    expect((await client.patch('/api/admin/contact-messages/1', { status: 'closed' })).status).toBe(403);
    const visitor = clientFromNewAddress();
    expect((await visitor.get('/api/admin/contact-messages')).status).toBe(401);
  });
});
