import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSERT_ANOMALY_SQL, insertAnomalyParams, type AnomalyRowInput } from '../../../../test/anomaly-fixtures.ts';
import { FAKE_LLM_KEY, FakeLlm } from '../../../../test/fakes/llm.ts';
import { newGuestOf, ownerWithStore } from '../../../../test/guests.ts';
import { createTestApp, GENEROUS_AUTH_LIMITS, signedInAdmin, trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { createAuthLimiters } from '../auth/attempt-limiter.ts';
import { createServices } from '../../trpc/context.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';
import { LLM_NOT_CONFIGURED_MESSAGE, openAiCompatibleProvider } from '../llm/llm-provider.ts';
import { Store } from '../stores/store.entity.ts';
import { sendAnomalyAlert } from './anomaly-alerts.ts';
import { explainPrompt } from './anomaly-explain.ts';
import { ANOMALY_NOT_FOUND_MESSAGE, getAnomaly } from './anomalies.service.ts';

// The panel's procedures on a real PostgreSQL: anomalies.list (order, status, resolved hidden),
// acknowledge / resolve (who and when, tenant scoping, view-only members refused), Explain through
// the optional LLM (a loopback fake of the chat-completions API), and the e-mail alert.

const testApp = useTestApp();
const fake = new FakeLlm();
let llmApp: FastifyInstance;
type Owner = Awaited<ReturnType<typeof ownerWithStore>>;
let owner: Owner;
let stranger: Owner;

async function insert(storeId: number, row: AnomalyRowInput): Promise<string> {
  const [inserted] = await sqlRunner(testApp.orm.em.fork()).rows<{ id: string }>(INSERT_ANOMALY_SQL, insertAnomalyParams(storeId, row));
  return inserted!.id;
}

const list = async (client: Owner['client'], includeResolved = false) => {
  const answer = await trpcQuery(client, 'anomalies.list', { includeResolved });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result.data;
};

beforeAll(async () => {
  await fake.start();
  llmApp = await createTestApp(testApp.orm, createServices({
    authLimiters: createAuthLimiters(GENEROUS_AUTH_LIMITS),
    llm: openAiCompatibleProvider({ baseUrl: fake.baseUrl, apiKey: FAKE_LLM_KEY, model: 'fake-model', timeoutMs: 2_000, maxTokens: 200 }),
  }));
  owner = await ownerWithStore(testApp.app, testApp.orm, 'Anomaly Shop');
  stranger = await ownerWithStore(testApp.app, testApp.orm, 'Other Shop');
});
afterAll(async () => {
  await llmApp?.close();
  await fake.close();
});

describe('anomalies.list', () => {
  it('is normal with no anomalies, and says Explain is unavailable without an LLM', async () => {
    expect(await list(owner.client)).toEqual({ status: 'normal', items: [], checkedAt: null, explainAvailable: false });
  });

  it('lists newest first, the most severe first within a day, and hides resolved ones unless asked', async () => {
    const low = await insert(owner.store.id, { day: '2026-11-20', detectedValue: 120, expectedValue: 100, severity: 'low', metric: 'orders' });
    const high = await insert(owner.store.id, { day: '2026-11-20', detectedValue: 10, expectedValue: 100, severity: 'high', metric: 'net_sales' });
    const older = await insert(owner.store.id, { day: '2026-11-18', detectedValue: 900, expectedValue: 300, severity: 'high', metric: 'marketing_spend', scopeLevel: 'campaign', scopeChannel: 'metaads', scopeCampaignId: '111', scopeLabel: 'Spring sale' });
    const resolved = await insert(owner.store.id, { day: '2026-11-21', detectedValue: 50, expectedValue: 100, metric: 'refunds', state: 'resolved' });
    const data = await list(owner.client);
    expect(data.status).toBe('detected');
    expect(data.items.map((item: { id: string }) => item.id)).toEqual([high, low, older]);
    expect(data.items[2]).toMatchObject({
      metric: 'marketing_spend', scope: { level: 'campaign', channel: 'metaads', campaignId: '111', label: 'Spring sale' },
      day: '2026-11-18', detectedValue: 900, expectedValue: 300, percentChange: 200, severity: 'high', state: 'new',
      recommendation: { code: 'check_bids_budget', params: {} }, stateChangedBy: null, stateChangedAt: null,
    });
    expect(data.items[2].evidence).toHaveLength(14);
    // Detection has not run for this store (the rows were written by the test): no check time yet.
    expect(data.checkedAt).toBeNull();
    const all = await list(owner.client, true);
    expect(all.items.map((item: { id: string }) => item.id)).toEqual([resolved, high, low, older]);
  });

  it('never shows another store’s anomalies', async () => {
    expect((await list(stranger.client)).items).toEqual([]);
  });
});

describe('acknowledge and resolve', () => {
  it('records who and when; a resolved anomaly leaves the list and stays resolved', async () => {
    const id = await insert(owner.store.id, { day: '2026-11-22', detectedValue: 0, expectedValue: 40, metric: 'orders', scopeLevel: 'channel', scopeChannel: 'googleads', scopeLabel: 'Google Ads', recommendationCode: 'check_tracking_landing' });
    const acknowledged = await trpcMutation(owner.client, 'anomalies.acknowledge', { id });
    expect(acknowledged.status).toBe(200);
    expect(acknowledged.body.result.data).toMatchObject({ id, state: 'acknowledged', stateChangedBy: String(owner.user.id) });
    expect(acknowledged.body.result.data.stateChangedAt).toMatch(/^\d{4}-/);
    const resolved = await trpcMutation(owner.client, 'anomalies.resolve', { id });
    expect(resolved.body.result.data.state).toBe('resolved');
    expect((await list(owner.client)).items.some((item: { id: string }) => item.id === id)).toBe(false);
    // A late "Acknowledge" from another tab does not bring it back.
    expect((await trpcMutation(owner.client, 'anomalies.acknowledge', { id })).body.result.data.state).toBe('resolved');
  });

  it('answers not found for another store’s anomaly, and for ids that are not ids', async () => {
    const id = await insert(owner.store.id, { day: '2026-11-23', detectedValue: 5, expectedValue: 50 });
    for (const path of ['anomalies.acknowledge', 'anomalies.resolve']) {
      const answer = await trpcMutation(stranger.client, path, { id });
      expect(answer.status).toBe(404);
      expect(answer.body.error.message).toBe(ANOMALY_NOT_FOUND_MESSAGE);
    }
    expect((await trpcMutation(owner.client, 'anomalies.resolve', { id: 'abc' })).status).toBe(404);
    const em = testApp.orm.em.fork();
    expect((await getAnomaly(em, owner.store.id, id)).state).toBe('new');
  });

  it('refuses view-only members and admins in guest mode', async () => {
    const id = await insert(owner.store.id, { day: '2026-11-24', detectedValue: 5, expectedValue: 50 });
    const member = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    expect((await list(member.client)).items.some((item: { id: string }) => item.id === id)).toBe(true);
    const asMember = await trpcMutation(member.client, 'anomalies.acknowledge', { id });
    expect(asMember.status).toBe(403);
    expect(asMember.body.error.message).toBe('You have view-only access to this store');
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: owner.user.id })).status).toBe(200);
    const asGuest = await trpcMutation(admin.client, 'anomalies.resolve', { id });
    expect(asGuest.status).toBe(403);
    expect(asGuest.body.error.message).toBe('Guest mode is read-only');
  });
});

describe('anomalies.explain', () => {
  it('refuses with the clear message when no LLM is configured', async () => {
    const id = await insert(owner.store.id, { day: '2026-11-25', detectedValue: 5, expectedValue: 50 });
    const answer = await trpcQuery(owner.client, 'anomalies.explain', { id, language: 'en' });
    expect(answer.status).toBe(412);
    expect(answer.body.error.message).toBe(LLM_NOT_CONFIGURED_MESSAGE);
  });

  it('asks the LLM with a prompt built from the item’s figures, in the user’s language', async () => {
    const id = await insert(owner.store.id, { day: '2026-11-26', detectedValue: 900, expectedValue: 300, metric: 'marketing_spend', scopeLevel: 'campaign', scopeChannel: 'metaads', scopeCampaignId: '9', scopeLabel: 'Winter' });
    const client = new (owner.client.constructor as new (app: FastifyInstance) => Owner['client'])(llmApp);
    client.sessionCookie = owner.client.sessionCookie;
    const listed = await trpcQuery(client, 'anomalies.list', {});
    expect(listed.body.result.data.explainAvailable).toBe(true);
    const answer = await trpcQuery(client, 'anomalies.explain', { id, language: 'fr' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.result.data.text).toBe('Explanation: Metric: Dépenses marketing (marketing_spend)');
    const sent = JSON.parse(fake.server.requests.at(-1)!.rawBody) as { messages: { role: string; content: string }[]; max_tokens: number };
    expect(sent.max_tokens).toBe(200);
    expect(sent.messages[0]!.content).toContain('in French');
    expect(sent.messages[1]!.content).toContain('Scope: Campagne : Winter');
    expect(sent.messages[1]!.content.replace(/\s/g, ' ')).toContain('change: +200 %');
    // Another store's anomaly stays out of reach.
    const strangerClient = new (owner.client.constructor as new (app: FastifyInstance) => Owner['client'])(llmApp);
    strangerClient.sessionCookie = stranger.client.sessionCookie;
    expect((await trpcQuery(strangerClient, 'anomalies.explain', { id, language: 'en' })).status).toBe(404);
  });

  it('writes the prompt in English with the store currency', async () => {
    const em = testApp.orm.em.fork();
    const id = await insert(owner.store.id, { day: '2026-11-27', detectedValue: 1250.5, expectedValue: 2500, metric: 'net_sales', recommendationCode: 'code_added_later' });
    const item = await getAnomaly(em, owner.store.id, id);
    const [, user] = explainPrompt(item, 'en', 'GBP');
    expect(user!.content).toContain('Detected: £1,251; expected: £2,500; change: -50%; severity: high');
    // An unknown recommendation code reads as the generic sentence.
    expect(user!.content).toContain('Rule-based recommendation: Look at what changed for Test Shop on this day');
  });
});

describe('e-mail alerts', () => {
  it('are off by default; the owner switches them on; viewers cannot', async () => {
    expect((await trpcQuery(owner.client, 'anomalies.alertSettings')).body.result.data).toEqual({ emailAlerts: false, language: 'en' });
    const member = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    expect((await trpcMutation(member.client, 'anomalies.setAlertSettings', { emailAlerts: true, language: 'en' })).status).toBe(403);
    const saved = await trpcMutation(owner.client, 'anomalies.setAlertSettings', { emailAlerts: true, language: 'de' });
    expect(saved.body.result.data).toEqual({ emailAlerts: true, language: 'de' });
  });

  it('sendAnomalyAlert e-mails new high-severity anomalies once, translated, through the outbox', async () => {
    const shop = await ownerWithStore(testApp.app, testApp.orm, 'Alert Shop');
    const em = () => testApp.orm.em.fork();
    const store = await em().findOneOrFail(Store, shop.store.id);
    const high = await insert(shop.store.id, { day: '2026-11-26', detectedValue: 0, expectedValue: 40, metric: 'orders', scopeLevel: 'channel', scopeChannel: 'googleads', scopeLabel: 'Google Ads', recommendationCode: 'check_tracking_landing' });
    await insert(shop.store.id, { day: '2026-11-26', detectedValue: 120, expectedValue: 100, severity: 'low' });
    const items = async () => (await list(shop.client)).items;
    const silent: string[] = [];
    // Off by default: nothing sent.
    expect(await sendAnomalyAlert(em(), store, await items(), { log: (line) => silent.push(line) })).toMatchObject({ reason: 'alerts_off', emailId: null });
    await trpcMutation(shop.client, 'anomalies.setAlertSettings', { emailAlerts: true, language: 'de' });
    const sent = await sendAnomalyAlert(em(), store, await items(), { publicUrl: 'https://app.example.com/', log: (line) => silent.push(line) });
    expect(sent).toMatchObject({ reason: 'sent', anomalyIds: [high] });
    const email = await em().findOneOrFail(OutboundEmail, sent.emailId!);
    expect(email).toMatchObject({ toAddress: shop.credentials.email.toLowerCase(), template: 'anomaly_alert', subject: 'Anomalien mit hohem Schweregrad in Alert Shop' });
    expect(email.textBody.replace(/[^\S\n]/g, ' ')).toContain('- Bestellungen (Kanal: Google Ads, 2026-11-26): 0 statt etwa 40 (-100 %). Die Ausgaben für Google Ads laufen weiter, aber Bestellungen oder Conversions sind eingebrochen (100 %): Prüfen Sie Tracking und Landingpage.');
    expect(email.textBody).toContain('https://app.example.com/dashboard');
    expect(email.textBody).not.toContain('{{');
    // The job runs again (or is retried): nothing new to send.
    expect(await sendAnomalyAlert(em(), store, await items(), { log: (line) => silent.push(line) })).toMatchObject({ reason: 'nothing_new', emailId: null });
    expect(await em().count(OutboundEmail, { template: 'anomaly_alert', toAddress: shop.credentials.email.toLowerCase() })).toBe(1);
  });
});
