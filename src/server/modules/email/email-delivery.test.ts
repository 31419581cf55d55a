import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInStoreOwner } from '../../../../test/commerce-fixtures.ts';
import { startSmtpPeer, SMTP_PEER_USER, type SmtpPeer } from '../../../../test/fakes/smtp-peer.ts';
import { ApiClient, signedInAdmin, signedInClient, trpcMutation, useTestApp } from '../../../../test/harness.ts';
import { startJobs, type JobRunner } from '../../jobs/boss.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { setIntegrationJobSender } from '../integrations/integrations-runtime.ts';
import { deliverDueReports } from '../reports/report-delivery.ts';
import { SavedReport } from '../reports/saved-report.entity.ts';
import { anomalyAlertSettings, setAnomalyAlertSettings } from '../anomalies/anomaly-alerts.ts';
import { Store } from '../stores/store.entity.ts';
import { User } from '../users/user.entity.ts';
import { unsubscribeUrl, type UnsubscribeTarget } from './unsubscribe.ts';
import { emailDeliveryJob, EMAIL_DELIVER_QUEUE, requeueOrphanedEmails } from './email-delivery.ts';
import { sendEmail } from './email.service.ts';
import { configureMail, mailSettingsFrom } from './mail-settings.ts';
import { OutboundEmail } from './outbound-email.entity.ts';

// The outbox delivered to a real SMTP server on loopback (test/fakes/smtp-peer.ts): STARTTLS with a
// self-signed certificate, AUTH, messages parsed with mailparser. pg-boss runs the delivery queue with
// 1-second retry delays (doubling) so that retries happen within the test.

const testApp = useTestApp();
const RETRY_LIMIT = 3;
const FROM = 'StorePulse <noreply@storepulse.test>';
let peer: SmtpPeer;
let jobs: JobRunner;
const quiet = () => {};

beforeAll(async () => {
  peer = await startSmtpPeer();
  configureMail(mailSettingsFrom(peer.url, FROM, false));
  jobs = await startJobs({
    databaseUrl: testApp.databaseUrl,
    orm: testApp.orm,
    baseUrl: 'https://app.example.com',
    logger: { info: quiet, error: quiet },
    jobs: [emailDeliveryJob({ retryLimit: RETRY_LIMIT, retryDelaySeconds: 1 })],
    checks: [],
    schedule: false,
  });
  setIntegrationJobSender((queue, data, options) => jobs.boss.send(queue, data, options));
});

afterAll(async () => {
  setIntegrationJobSender(null);
  configureMail(null);
  await jobs?.stop();
  await peer?.stop();
});

const row = (id: number) => testApp.orm.em.fork().findOneOrFail(OutboundEmail, { id });
const rowTo = (address: string) => testApp.orm.em.fork().findOneOrFail(OutboundEmail, { toAddress: address }, { orderBy: { id: 'desc' } });
const jobsOf = (emailId: number) =>
  sqlRunner(testApp.orm.em.fork()).rows<{ state: string; retryCount: number }>(
    `select state, retry_count as "retryCount" from pgboss.job where name = $1 and (data->>'emailId')::int = $2`,
    [EMAIL_DELIVER_QUEUE, emailId],
  );

describe('delivery through SMTP', () => {
  it('sends a password reset as text + HTML over STARTTLS with AUTH, records the answer, and its link works', async () => {
    const { credentials } = await signedInClient(testApp.app, 'smtpreset');
    expect((await new ApiClient(testApp.app).post('/api/forgot-password', { email: credentials.email })).status).toBe(200);
    await expect.poll(async () => (await rowTo(credentials.email)).status).toBe('sent');
    const [mail] = peer.to(credentials.email);
    expect(peer.to(credentials.email)).toHaveLength(1);
    expect(mail!.tls).toBe(true);
    expect(mail!.user).toBe(SMTP_PEER_USER.user);
    expect(mail!.parsed.from?.text).toBe('"StorePulse" <noreply@storepulse.test>');
    expect(mail!.parsed.subject).toBe('Reset your StorePulse password');
    // Transactional mail: nobody unsubscribes from their password reset.
    expect(mail!.parsed.headers.has('list-unsubscribe')).toBe(false);
    const resetUrl = /(https?:\/\/\S+\/reset-password\?token=[A-Za-z0-9_-]{43})/.exec(mail!.parsed.text ?? '')![1]!;
    expect(mail!.parsed.html).toContain(`<a href="${resetUrl}">${resetUrl}</a>`);

    const stored = await rowTo(credentials.email);
    expect(stored).toMatchObject({ attempts: 1, error: null, messageId: mail!.parsed.messageId });
    expect(stored.serverResponse).toMatch(/^250 /);
    expect(stored.sentAt).toBeInstanceOf(Date);

    const token = new URL(resetUrl).searchParams.get('token');
    expect((await new ApiClient(testApp.app).post('/api/reset-password', { token, newPassword: 'smtp-delivered-pass', confirmPassword: 'smtp-delivered-pass' })).status).toBe(200);
    expect((await new ApiClient(testApp.app).post('/api/login', { username: credentials.username, password: 'smtp-delivered-pass' })).status).toBe(200);
  });

  it('escapes what a visitor typed in the HTML part and keeps the text part as typed', async () => {
    const hostile = '<script>alert("x")</script> & <b>Bob</b>';
    const answer = await new ApiClient(testApp.app).post('/api/contact', { name: hostile, email: 'hostile@example.com', message: 'Please <img src=x onerror=alert(1)> help me with my store' });
    expect(answer.status).toBeLessThan(300);
    await expect.poll(() => peer.to('hostile@example.com').length).toBe(1);
    const { parsed } = peer.to('hostile@example.com')[0]!;
    expect(parsed.text).toContain(`Hello ${hostile},`);
    expect(parsed.html).toContain('Hello &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;Bob&lt;/b&gt;,');
    expect(parsed.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(parsed.html).not.toMatch(/<script|<img|<b>/);
    expect(parsed.html).toMatch(/<p[^>]*>Hello /);
  });

  it('a scheduled report arrives with its CSV attached and a one-click unsubscribe that removes that recipient only', async () => {
    const owner = await signedInStoreOwner(testApp, 'smtprep');
    const definition = { metrics: ['netSales', 'orders'], dimension: 'channel', range: { from: '2026-06-01', to: '2026-06-14' } };
    const saved = (await trpcMutation(owner.client, 'reports.save', { name: 'Weekly <channels>', definition, schedule: 'weekly', recipients: ['boss@example.com', 'team@example.com'] })).body.result.data;
    expect(saved.id).toBeTypeOf('number');
    await sqlRunner(testApp.orm.em.fork()).run(`update saved_reports set scheduled_since = now() - interval '14 days' where store_id = $1`, [owner.store.id]);
    expect(await deliverDueReports(testApp.orm.em.fork(), { baseUrl: 'http://localhost', log: quiet })).toMatchObject({ emails: 2 });
    await expect.poll(() => peer.to('boss@example.com').length + peer.to('team@example.com').length).toBe(2);

    const { parsed } = peer.to('boss@example.com')[0]!;
    expect(parsed.subject).toBe('Your weekly StorePulse report: Weekly <channels> (smtprep store)');
    expect(parsed.text).toContain('Weekly <channels>');
    expect(parsed.html).toContain('Weekly &lt;channels&gt;');
    expect(parsed.attachments).toHaveLength(1);
    const csv = parsed.attachments[0]!;
    expect(csv.contentType).toBe('text/csv');
    expect(csv.filename).toMatch(/^weekly-channels-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(csv.content.toString('utf8').split('\n')[0]).toContain('Net sales');
    expect(csv.content.toString('utf8')).toMatch(/^.*Total/m);

    // mailparser reads the List-* headers into one object (RFC 2369 / RFC 8058).
    const list = parsed.headers.get('list') as { unsubscribe?: { url?: string }; 'unsubscribe-post'?: { name?: string } };
    expect(list['unsubscribe-post']?.name).toBe('List-Unsubscribe=One-Click');
    const url = new URL(list.unsubscribe!.url!);
    expect(url.pathname).toBe('/api/unsubscribe');

    const recipients = async () => (await testApp.orm.em.fork().findOneOrFail(SavedReport, { store: owner.store.id, id: saved.id })).recipients;
    // Following the link (or a link scanner) only asks; a forged token does nothing.
    const asked = await testApp.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: { 'accept-language': 'fr-FR,fr;q=0.9' } });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Ne plus envoyer le rapport programmé à boss@example.com ?');
    // The same signature on another target (the other recipient) is refused.
    const [, signature] = url.searchParams.get('token')!.split('.');
    const otherTarget = Buffer.from(JSON.stringify({ kind: 'report', storeId: owner.store.id, reportId: saved.id, email: 'team@example.com' })).toString('base64url');
    const forged = `${otherTarget}.${signature}`;
    expect((await testApp.app.inject({ method: 'POST', url: `/api/unsubscribe?token=${forged}`, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).statusCode).toBe(400);
    expect(await recipients()).toEqual(['boss@example.com', 'team@example.com']);
    // The mail client's one-click POST (RFC 8058), without any session.
    const oneClick = await testApp.app.inject({ method: 'POST', url: `${url.pathname}${url.search}`, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(oneClick.statusCode).toBe(200);
    expect(oneClick.body).toContain('You are unsubscribed');
    expect(await recipients()).toEqual(['team@example.com']);
  });

  it('the one-click unsubscribe of alert mail turns the store\'s anomaly alerts off, and of marketing mail the user\'s opt-in', async () => {
    const owner = await signedInStoreOwner(testApp, 'smtpalerts');
    const em = testApp.orm.em.fork();
    const store = await em.findOneOrFail(Store, { id: owner.store.id });
    await setAnomalyAlertSettings(em, store, { emailAlerts: true, language: 'de' });
    await em.nativeUpdate(User, { username: owner.credentials.username }, { marketingEmails: true });
    const user = await em.findOneOrFail(User, { username: owner.credentials.username });
    const oneClick = (target: UnsubscribeTarget) => {
      const url = new URL(unsubscribeUrl('http://localhost', target));
      return testApp.app.inject({ method: 'POST', url: `${url.pathname}${url.search}`, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    };

    expect((await oneClick({ kind: 'anomaly_alerts', storeId: store.id })).statusCode).toBe(200);
    expect(await anomalyAlertSettings(testApp.orm.em.fork(), store)).toEqual({ emailAlerts: false, language: 'de' });
    expect((await oneClick({ kind: 'marketing', userId: user.id })).statusCode).toBe(200);
    expect((await testApp.orm.em.fork().findOneOrFail(User, { id: user.id })).marketingEmails).toBe(false);
  });

  it('a permanent refusal (550) fails the e-mail at once with the server\'s answer, without retrying', async () => {
    peer.refuseRecipient('gone@example.com', 550, 'No such user here');
    const email = await sendEmail(testApp.orm.em.fork(), { to: 'gone@example.com', template: 'contact_confirmation', variables: { name: 'Gone', message: 'Hi' } }, quiet);
    await expect.poll(async () => (await row(email.id)).status).toBe('failed');
    const failed = await row(email.id);
    expect(failed.attempts).toBe(1);
    expect(failed.serverResponse).toMatch(/^550 .*No such user here/);
    expect(failed.sentAt).toBeNull();
    await expect.poll(() => jobsOf(email.id)).toEqual([{ state: 'completed', retryCount: 0 }]);
    expect(peer.to('gone@example.com')).toHaveLength(0);

    // The admin sees it in the outbox and may retry it once the cause is fixed.
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const outbox = await admin.client.get('/api/admin/emails?to=gone@example.com');
    expect(outbox.body[0]).toMatchObject({ status: 'failed', attempts: 1, serverResponse: expect.stringMatching(/^550 /), hasHtml: true });
    expect((await admin.client.post(`/api/admin/emails/${email.id}/retry`, {})).status).toBe(200);
    await expect.poll(async () => (await row(email.id)).attempts).toBe(2);
    expect((await row(email.id)).status).toBe('failed');
    const sent = (await sendEmail(testApp.orm.em.fork(), { to: 'fine@example.com', template: 'contact_confirmation', variables: { name: 'Fine', message: 'Hi' } }, quiet)).id;
    await expect.poll(async () => (await row(sent)).status).toBe('sent');
    expect((await admin.client.post(`/api/admin/emails/${sent}/retry`, {})).body.message).toBe('Only a failed e-mail can be sent again');
  });

  it('"Retry delivery" is audited with the administrator and the e-mail id; a refused retry records nothing', async () => {
    const { user, credentials } = await signedInClient(testApp.app, 'retryaudit');
    peer.refuseRecipient(credentials.email, 550, 'Mailbox unavailable');
    const email = await sendEmail(testApp.orm.em.fork(), { to: credentials.email, template: 'contact_confirmation', userId: user.id, variables: { name: 'Retry', message: 'Hi' } }, quiet);
    await expect.poll(async () => (await row(email.id)).status).toBe('failed');
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const retriesOf = async (emailId: number) =>
      ((await admin.client.get('/api/admin/audit-log?limit=100')).body as { action: string; actorUserId: number | null; targetUserId: number | null; details: Record<string, unknown> | null }[])
        .filter((entry) => entry.action === 'email.retry_delivery' && entry.details?.emailId === emailId);
    expect(await retriesOf(email.id)).toEqual([]);
    expect((await admin.client.post(`/api/admin/emails/${email.id}/retry`, {})).status).toBe(200);
    const [entry, ...more] = await retriesOf(email.id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ actorUserId: admin.user.id, targetUserId: user.id, details: { emailId: email.id, template: 'contact_confirmation' } });
    // The entry names the e-mail, never its recipient's address.
    expect(JSON.stringify(entry)).not.toContain(credentials.email);
    await expect.poll(async () => (await row(email.id)).attempts).toBe(2);
    // A retry the server refuses (the e-mail did not fail) leaves no entry.
    const sent = (await sendEmail(testApp.orm.em.fork(), { to: 'fine-audit@example.com', template: 'contact_confirmation', variables: { name: 'Fine', message: 'Hi' } }, quiet)).id;
    await expect.poll(async () => (await row(sent)).status).toBe('sent');
    expect((await admin.client.post(`/api/admin/emails/${sent}/retry`, {})).status).toBe(400);
    expect(await retriesOf(sent)).toEqual([]);
  });

  it('a temporary refusal (421) is retried with backoff until the server accepts it, and sent once', async () => {
    peer.failNext(2, 421, 'Try again later');
    const email = await sendEmail(testApp.orm.em.fork(), { to: 'later@example.com', template: 'contact_confirmation', variables: { name: 'Later', message: 'Hi' } }, quiet);
    await expect.poll(async () => (await row(email.id)).status).toBe('sent');
    const sent = await row(email.id);
    expect(sent.attempts).toBe(3);
    expect(sent.serverResponse).toMatch(/^250 /);
    expect(peer.to('later@example.com')).toHaveLength(1);
    await expect.poll(() => jobsOf(email.id)).toEqual([{ state: 'completed', retryCount: 2 }]);
  });

  it('a server that is down is retried; the e-mail goes out once it answers', async () => {
    await peer.stop();
    try {
      const email = await sendEmail(testApp.orm.em.fork(), { to: 'down@example.com', template: 'contact_confirmation', variables: { name: 'Down', message: 'Hi' } }, quiet);
      await expect.poll(async () => (await row(email.id)).attempts).toBeGreaterThanOrEqual(1);
      expect(await row(email.id)).toMatchObject({ status: 'pending', error: expect.stringMatching(/ECONNREFUSED|connect/i) });
    } finally {
      await peer.start();
    }
    await expect.poll(async () => (await rowTo('down@example.com')).status).toBe('sent');
    expect(peer.to('down@example.com')).toHaveLength(1);
  });

  it('a duplicated delivery job sends nothing more: an e-mail already sent stays sent once', async () => {
    const email = await sendEmail(testApp.orm.em.fork(), { to: 'once@example.com', template: 'contact_confirmation', variables: { name: 'Once', message: 'Hi' } }, quiet);
    await expect.poll(async () => (await row(email.id)).status).toBe('sent');
    const duplicate = await jobs.boss.send(EMAIL_DELIVER_QUEUE, { emailId: email.id });
    await expect.poll(async () => (await jobs.boss.findJobs(EMAIL_DELIVER_QUEUE, { id: duplicate! }))[0]?.state).toBe('completed');
    expect(peer.to('once@example.com')).toHaveLength(1);
    expect((await row(email.id)).attempts).toBe(1);
  });

  it('a pending e-mail whose job was lost (written where no queue ran) is put back on the queue and sent', async () => {
    setIntegrationJobSender(null);
    let email;
    try {
      email = await sendEmail(testApp.orm.em.fork(), { to: 'orphan@example.com', template: 'contact_confirmation', variables: { name: 'Orphan', message: 'Hi' } }, quiet);
    } finally {
      setIntegrationJobSender((queue, data, options) => jobs.boss.send(queue, data, options));
    }
    expect((await row(email.id)).status).toBe('pending');
    expect(await jobsOf(email.id)).toEqual([]);
    expect(await requeueOrphanedEmails(testApp.orm.em.fork(), 0)).toBe(1);
    await expect.poll(async () => (await row(email.id)).status).toBe('sent');
    // Sent: nothing left to put back.
    expect(await requeueOrphanedEmails(testApp.orm.em.fork(), 0)).toBe(0);
    expect(peer.to('orphan@example.com')).toHaveLength(1);
  });

  it('gives up after the retry limit and marks the e-mail failed', async () => {
    peer.failNext(RETRY_LIMIT + 1, 451, 'Local error in processing');
    const email = await sendEmail(testApp.orm.em.fork(), { to: 'never@example.com', template: 'contact_confirmation', variables: { name: 'Never', message: 'Hi' } }, quiet);
    await expect.poll(async () => (await row(email.id)).status).toBe('failed');
    expect(await row(email.id)).toMatchObject({ attempts: RETRY_LIMIT + 1, serverResponse: expect.stringMatching(/^451 /) });
    expect(peer.to('never@example.com')).toHaveLength(0);
  });
});
