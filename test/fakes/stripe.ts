import { createHash, createHmac, randomBytes } from 'node:crypto';
import { escapeHtml, FakeServer, type FakeRequest, type FakeResponse } from './fake-server.ts';

// A loopback Stripe speaking the documented REST shapes (https://docs.stripe.com/api): form-encoded
// bodies with a[b][0][c] nesting, Bearer auth, Stripe-Version, Idempotency-Key, expand[], list
// objects with limit/starting_after, error objects. Its test API plays the buyer and the passing of
// time, and sends every event to the app signed the way Stripe signs them (Stripe-Signature t=, v1=).

type StripeObject = Record<string, unknown> & { id: string; object: string };
type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type WebhookTarget = (body: string, signature: string) => Promise<number>;

const DAY = 86_400;

/** Parses an application/x-www-form-urlencoded body the way Stripe reads it: a[b][0][c]=v, a[]=v. */
export function parseStripeForm(raw: string | URLSearchParams): Record<string, FormValue> {
  const params = typeof raw === 'string' ? new URLSearchParams(raw) : raw;
  const root: Record<string, FormValue> = {};
  for (const [key, value] of params) {
    const parts = key.replace(/\]/g, '').split('[');
    let node: Record<string, FormValue> | FormValue[] = root;
    parts.forEach((part, index) => {
      const last = index === parts.length - 1;
      const slot = part === '' && Array.isArray(node) ? String(node.length) : part;
      if (last) {
        (node as Record<string, FormValue>)[slot] = value;
        return;
      }
      const nextIsArray = /^\d*$/.test(parts[index + 1]!);
      const existing = (node as Record<string, FormValue>)[slot];
      node = (existing ?? ((node as Record<string, FormValue>)[slot] = nextIsArray ? [] : {})) as Record<string, FormValue>;
    });
  }
  return root;
}

function listOf(values: unknown): string[] {
  if (values === undefined) return [];
  if (typeof values === 'string') return [values];
  return Object.values(values as Record<string, string>);
}

function error(status: number, type: string, message: string, extra: Record<string, string> = {}): FakeResponse {
  return { status, body: { error: { type, message, ...extra, request_log_url: 'https://dashboard.stripe.com/test/logs/req_fake' } } };
}

export interface StripeFakeOptions {
  secretKey: string;
  webhookSecret: string;
  /** Where events go (the app's POST /api/webhooks/stripe). */
  deliver: WebhookTarget;
}

export class StripeFake {
  readonly server = new FakeServer();
  /** The fake's clock in Unix seconds; advanceClock moves it. */
  now = Math.floor(Date.now() / 1000);
  readonly objects = new Map<string, StripeObject>();
  readonly sentEvents: StripeObject[] = [];
  private readonly idempotency = new Map<string, { bodyHash: string; response: FakeResponse }>();
  private readonly decliningCustomers = new Set<string>();
  private readonly cards = new Map<string, string>();
  private counter = 0;

  private readonly options: StripeFakeOptions;

  constructor(options: StripeFakeOptions) {
    this.options = options;
  }

  get url(): string {
    return this.server.url;
  }

  async start(port = 0): Promise<this> {
    const s = this.server;
    s.route('GET', '/v1/prices', (r) => this.api(r, () => this.list('price', r, (p) => (listOf(this.q(r).lookup_keys).length === 0 || listOf(this.q(r).lookup_keys).includes(p.lookup_key as string)) && (this.q(r).active === undefined || String(p.active) === this.q(r).active))));
    s.route('POST', '/v1/prices', (r) => this.api(r, () => this.createPrice(this.form(r))));
    s.route('POST', '/v1/customers', (r) => this.api(r, () => this.ok(this.create('cus', 'customer', { email: this.form(r).email ?? null, metadata: this.form(r).metadata ?? {} }))));
    s.route('GET', '/v1/customers/:id', (r) => this.api(r, () => this.retrieve(r, 'customer')));
    s.route('POST', '/v1/checkout/sessions', (r) => this.api(r, () => this.createCheckoutSession(this.form(r))));
    s.route('GET', '/v1/checkout/sessions/:id', (r) => this.api(r, () => this.retrieve(r, 'checkout.session')));
    s.route('POST', '/v1/billing_portal/sessions', (r) => this.api(r, () => this.createPortalSession(this.form(r))));
    s.route('GET', '/v1/subscriptions/:id', (r) => this.api(r, () => this.retrieve(r, 'subscription')));
    // Cancel a subscription (https://docs.stripe.com/api/subscriptions/cancel): at once, answered with the subscription.
    s.route('DELETE', '/v1/subscriptions/:id', (r) => this.api(r, () => this.cancelNow(r.params.id!)));
    s.route('GET', '/v1/subscriptions', (r) => this.api(r, () => this.list('subscription', r, (sub) => !this.q(r).customer || sub.customer === this.q(r).customer)));
    s.route('GET', '/v1/invoices/:id', (r) => this.api(r, () => this.retrieve(r, 'invoice')));
    s.route('GET', '/v1/invoices', (r) => this.api(r, () => this.list('invoice', r, (inv) => !this.q(r).customer || inv.customer === this.q(r).customer)));
    s.route('GET', '/v1/charges', (r) => this.api(r, () => this.list('charge', r, (charge) => (!this.q(r).payment_intent || charge.payment_intent === this.q(r).payment_intent) && (!this.q(r).customer || charge.customer === this.q(r).customer))));
    s.route('GET', '/v1/charges/:id', (r) => this.api(r, () => this.retrieve(r, 'charge')));
    s.route('GET', '/v1/invoice_payments', (r) =>
      this.api(r, () => {
        const payment = (this.q(r).payment ?? {}) as Record<string, string>;
        return this.list('invoice_payment', r, (item) => (!this.q(r).invoice || item.invoice === this.q(r).invoice) && (!payment.payment_intent || (item.payment as { payment_intent: string }).payment_intent === payment.payment_intent));
      }),
    );
    // The hosted pages a buyer sees.
    s.route('GET', '/pay/:id', (r) => this.checkoutPage(r.params.id!));
    s.route('POST', '/pay/:id', async (r) => {
      const session = await this.completeCheckout(r.params.id!);
      return { status: 303, headers: { location: String(session.success_url).replace('{CHECKOUT_SESSION_ID}', session.id) }, body: '' };
    });
    s.route('GET', '/portal/:id', (r) => this.portalPage(r.params.id!));
    s.route('GET', '/invoice/:id/pdf', () => ({ headers: { 'content-type': 'application/pdf' }, body: Buffer.from('%PDF-1.4\n% fake invoice\n%%EOF\n') }));
    await s.start(port);
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private q(request: FakeRequest): Record<string, FormValue> & Record<string, string> {
    return parseStripeForm(request.query) as never;
  }

  private form(request: FakeRequest): Record<string, any> {
    return parseStripeForm(request.rawBody);
  }

  private ok(body: unknown): FakeResponse {
    return { status: 200, body };
  }

  /** Auth, version header, idempotency and expand[] around every /v1 call. */
  private async api(request: FakeRequest, handle: () => FakeResponse | Promise<FakeResponse>): Promise<FakeResponse> {
    const auth = request.headers.authorization ?? '';
    if (auth !== `Bearer ${this.options.secretKey}`) return error(401, 'invalid_request_error', `Invalid API Key provided: ${auth.replace(/^Bearer /, '').slice(0, 8)}****`);
    const version = { 'stripe-version': String(request.headers['stripe-version'] ?? '2026-10-28.endive'), 'request-id': `req_${randomBytes(7).toString('hex')}` };
    const key = request.headers['idempotency-key'];
    const bodyHash = createHash('sha256').update(`${request.method} ${request.path} ${request.rawBody}`).digest('hex');
    if (request.method === 'POST' && typeof key === 'string') {
      const seen = this.idempotency.get(key);
      if (seen && seen.bodyHash !== bodyHash) {
        return { ...error(400, 'idempotency_error', `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`), headers: version };
      }
      if (seen) return { ...seen.response, headers: { ...version, 'idempotent-replayed': 'true' } };
    }
    const limit = this.q(request).limit;
    if (limit !== undefined && !(Number(limit) >= 1 && Number(limit) <= 100)) {
      return { ...error(400, 'invalid_request_error', 'This value must be between 1 and 100.', { param: 'limit', code: 'parameter_invalid_integer' }), headers: version };
    }
    let response = await handle();
    const expand = listOf({ ...(this.q(request).expand as object | undefined), ...(request.method === 'POST' ? this.form(request).expand : {}) });
    if (response.status === 200 && expand.length > 0) response = { ...response, body: this.expand(structuredClone(response.body) as StripeObject, expand) };
    response = { ...response, headers: { ...version, ...response.headers } };
    // Stripe saves the first result once the endpoint ran, 500s included; a request that failed
    // parameter validation saves nothing (https://docs.stripe.com/idempotency).
    if (request.method === 'POST' && typeof key === 'string' && response.status !== 400) this.idempotency.set(key, { bodyHash, response });
    return response;
  }

  private expand(body: StripeObject, paths: string[]): StripeObject {
    const walk = (node: any, parts: string[]): any => {
      if (node === null || node === undefined || parts.length === 0) return node;
      const [head, ...rest] = parts;
      if (head === 'data' && Array.isArray(node.data)) return { ...node, data: node.data.map((item: any) => walk(item, rest)) };
      const value = node[head!];
      if (rest.length === 0 && typeof value === 'string' && this.objects.has(value)) return { ...node, [head!]: structuredClone(this.objects.get(value)) };
      return { ...node, [head!]: walk(value, rest) };
    };
    return paths.reduce((current, path) => walk(current, path.split('.')), body);
  }

  private create(prefix: string, object: string, fields: Record<string, unknown>): StripeObject {
    this.counter += 1;
    const id = `${prefix}_fake${String(this.counter).padStart(6, '0')}${randomBytes(4).toString('hex')}`;
    const created = { id, object, created: this.now, livemode: false, ...fields } as StripeObject;
    this.objects.set(id, created);
    return created;
  }

  private retrieve(request: FakeRequest, object: string): FakeResponse {
    const found = this.objects.get(request.params.id!);
    if (!found || found.object !== object) return error(404, 'invalid_request_error', `No such ${object.replace('checkout.', '')}: '${request.params.id}'`, { code: 'resource_missing', param: 'id' });
    return this.ok(found);
  }

  private list(object: string, request: FakeRequest, keep: (item: StripeObject) => boolean): FakeResponse {
    const query = this.q(request);
    const limit = Number(query.limit ?? 10);
    let items = [...this.objects.values()].filter((item) => item.object === object && keep(item)).reverse();
    if (query.starting_after) items = items.slice(items.findIndex((item) => item.id === query.starting_after) + 1);
    return this.ok({ object: 'list', data: items.slice(0, limit), has_more: items.length > limit, url: request.path });
  }

  private createPrice(form: Record<string, any>): FakeResponse {
    if (!form.currency || form.unit_amount === undefined) return error(400, 'invalid_request_error', 'Missing required param: currency.', { param: 'currency', code: 'parameter_missing' });
    const product = form.product ?? this.create('prod', 'product', { name: form.product_data?.name ?? 'Product', active: true }).id;
    if (form.lookup_key && form.transfer_lookup_key === 'true') {
      for (const other of this.objects.values()) if (other.object === 'price' && other.lookup_key === form.lookup_key) other.lookup_key = null;
    }
    return this.ok(
      this.create('price', 'price', {
        active: true,
        currency: form.currency,
        unit_amount: Number(form.unit_amount),
        lookup_key: form.lookup_key ?? null,
        product,
        type: form.recurring ? 'recurring' : 'one_time',
        recurring: form.recurring ? { interval: form.recurring.interval, interval_count: 1, usage_type: 'licensed' } : null,
      }),
    );
  }

  private createCheckoutSession(form: Record<string, any>): FakeResponse {
    if (!['payment', 'subscription', 'setup'].includes(form.mode)) return error(400, 'invalid_request_error', 'Invalid mode.', { param: 'mode' });
    const line = form.line_items?.[0];
    const price = line && this.objects.get(line.price);
    if (!price) return error(400, 'invalid_request_error', `No such price: '${line?.price}'`, { param: 'line_items[0][price]', code: 'resource_missing' });
    if (!form.success_url) return error(400, 'invalid_request_error', 'Missing required param: success_url.', { param: 'success_url', code: 'parameter_missing' });
    const session = this.create('cs_test', 'checkout.session', {
      mode: form.mode,
      status: 'open',
      payment_status: 'unpaid',
      customer: form.customer ?? null,
      client_reference_id: form.client_reference_id ?? null,
      success_url: form.success_url,
      cancel_url: form.cancel_url ?? null,
      metadata: form.metadata ?? {},
      subscription: null,
      amount_total: price.unit_amount,
      currency: price.currency,
      // Kept for completing the session; Stripe keeps these as line_items and subscription_data.
      line_price: price.id,
      trial_period_days: form.subscription_data?.trial_period_days ? Number(form.subscription_data.trial_period_days) : null,
    });
    session.url = `${this.url}/pay/${session.id}`;
    return this.ok(session);
  }

  private createPortalSession(form: Record<string, any>): FakeResponse {
    const customer = this.objects.get(form.customer);
    if (!customer || customer.object !== 'customer') return error(400, 'invalid_request_error', `No such customer: '${form.customer}'`, { param: 'customer', code: 'resource_missing' });
    const portal = this.create('bps', 'billing_portal.session', { customer: customer.id, return_url: form.return_url ?? null });
    portal.url = `${this.url}/portal/${portal.id}`;
    return this.ok(portal);
  }

  /** The Customer Portal a portal session's url opens: its "Return to …" link goes to the session's return_url. */
  private portalPage(id: string): FakeResponse {
    const portal = this.objects.get(id);
    if (!portal || portal.object !== 'billing_portal.session') return { status: 404, body: 'No such portal session' };
    const back = portal.return_url ? `<a href="${escapeHtml(String(portal.return_url))}">Return to StorePulse</a>` : '';
    return {
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><html><head><title>Stripe Customer Portal (fake)</title></head><body><main><h1>Manage your StorePulse billing</h1><p>Customer ${escapeHtml(String(portal.customer))}</p>${back}</main></body></html>`,
    };
  }

  private checkoutPage(id: string): FakeResponse {
    const session = this.objects.get(id);
    if (!session) return { status: 404, body: 'No such checkout session' };
    const amount = (Number(session.amount_total) / 100).toFixed(2);
    return {
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><html><head><title>Stripe Checkout (fake)</title></head><body><main><h1>Pay StorePulse</h1><p>${String(session.currency).toUpperCase()} ${amount}${session.trial_period_days ? ` after a ${session.trial_period_days}-day trial` : ''}</p><form method="post" action="/pay/${id}"><button type="submit">Pay</button></form></main></body></html>`,
    };
  }

  // ---- The events, signed as Stripe signs them ------------------------------------------------

  /** `t=<unix>,v1=<hex HMAC-SHA256 of "t.body" with the endpoint secret>` (https://docs.stripe.com/webhooks#verify-manually). */
  signature(body: string, timestamp = Math.floor(Date.now() / 1000), secret = this.options.webhookSecret): string {
    return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
  }

  private async emit(type: string, object: StripeObject): Promise<StripeObject> {
    const event = this.create('evt', 'event', { type, api_version: '2026-10-28.endive', pending_webhooks: 1, request: { id: null, idempotency_key: null }, data: { object: structuredClone(object) } });
    this.sentEvents.push(event);
    const body = JSON.stringify(event);
    await this.options.deliver(body, this.signature(body));
    return event;
  }

  /** Sends an event again exactly as it was (a redelivery, or a replay by someone who captured it). */
  async resend(event: StripeObject, timestamp?: number): Promise<number> {
    const body = JSON.stringify(event);
    return this.options.deliver(body, this.signature(body, timestamp));
  }

  private price(subscription: StripeObject): StripeObject {
    return (subscription.items as { data: { price: StripeObject }[] }).data[0]!.price;
  }

  private periodEnd(start: number, interval: string): number {
    const date = new Date(start * 1000);
    if (interval === 'year') date.setUTCFullYear(date.getUTCFullYear() + 1);
    else date.setUTCMonth(date.getUTCMonth() + 1);
    return Math.floor(date.getTime() / 1000);
  }

  private setPeriod(subscription: StripeObject, start: number, end: number): void {
    const item = (subscription.items as { data: Record<string, unknown>[] }).data[0]!;
    item.current_period_start = start;
    item.current_period_end = end;
  }

  private invoice(subscription: StripeObject, amount: number, reason: string, periodStart: number, periodEnd: number): StripeObject {
    const invoice = this.create('in', 'invoice', {
      customer: subscription.customer,
      currency: this.price(subscription).currency,
      status: 'open',
      billing_reason: reason,
      amount_due: amount,
      amount_paid: 0,
      amount_remaining: amount,
      attempted: false,
      attempt_count: 0,
      next_payment_attempt: null,
      period_start: periodStart,
      period_end: periodEnd,
      parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id, metadata: {} }, quote_details: null },
      status_transitions: { finalized_at: this.now, paid_at: null, voided_at: null, marked_uncollectible_at: null },
      lines: { object: 'list', data: [{ id: `il_${randomBytes(6).toString('hex')}`, object: 'line_item', amount, currency: this.price(subscription).currency, period: { start: periodStart, end: periodEnd } }], has_more: false, url: '/v1/invoices/lines' },
    });
    invoice.hosted_invoice_url = `${this.url}/invoice/${invoice.id}`;
    invoice.invoice_pdf = `${this.url}/invoice/${invoice.id}/pdf`;
    subscription.latest_invoice = invoice.id;
    return invoice;
  }

  /** A paid invoice's money: its payment intent, charge and invoice payment (https://docs.stripe.com/api/invoice-payment). */
  private recordPayment(invoice: StripeObject): void {
    if (Number(invoice.amount_paid) <= 0) return;
    const intent = this.create('pi', 'payment_intent', { amount: invoice.amount_paid, currency: invoice.currency, customer: invoice.customer, status: 'succeeded' });
    this.create('ch', 'charge', {
      amount: invoice.amount_paid, amount_refunded: 0, refunded: false, disputed: false, currency: invoice.currency, customer: invoice.customer, payment_intent: intent.id, paid: true, status: 'succeeded',
      payment_method_details: { type: 'card', card: this.cardOf(String(invoice.customer)) },
    });
    this.create('inpay', 'invoice_payment', { invoice: invoice.id, amount_paid: invoice.amount_paid, amount_requested: invoice.amount_due, currency: invoice.currency, is_default: true, status: 'paid', payment: { type: 'payment_intent', payment_intent: intent.id } });
  }

  /**
   * The card a customer pays with (https://docs.stripe.com/api/charges/object: payment_method_details.card).
   * Each customer has their own card unless a test gave them one with useCard; the fingerprint is per card number.
   */
  private cardOf(customerId: string): { brand: string; last4: string; fingerprint: string } {
    const cardNumber = this.cards.get(customerId) ?? `4242${createHash('sha256').update(customerId).digest('hex').replace(/\D/g, '').padEnd(12, '0').slice(0, 12)}`;
    return { brand: 'visa', last4: cardNumber.slice(-4), fingerprint: createHash('sha256').update(`fake-card|${cardNumber}`).digest('base64url').slice(0, 16) };
  }

  /** From now on the customer pays with this card number (two customers given the same number share a fingerprint). */
  useCard(customerId: string, cardNumber: string): void {
    this.cards.set(customerId, cardNumber);
  }

  private chargeOf(invoiceId: string): StripeObject {
    const payment = [...this.objects.values()].find((item) => item.object === 'invoice_payment' && item.invoice === invoiceId)!;
    const intent = (payment.payment as { payment_intent: string }).payment_intent;
    return [...this.objects.values()].find((item) => item.object === 'charge' && item.payment_intent === intent)!;
  }

  /** A refund (from the Dashboard) of part or all of an invoice's charge: charge.refunded. */
  async refund(invoiceId: string, amount: number): Promise<void> {
    const charge = this.chargeOf(invoiceId);
    charge.amount_refunded = Number(charge.amount_refunded) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    await this.emit('charge.refunded', charge);
  }

  /** The cardholder disputes an invoice's charge: charge.dispute.created. */
  async dispute(invoiceId: string): Promise<void> {
    const charge = this.chargeOf(invoiceId);
    charge.disputed = true;
    const dispute = this.create('dp', 'dispute', { charge: charge.id, amount: charge.amount, currency: charge.currency, status: 'needs_response', reason: 'fraudulent', payment_intent: charge.payment_intent });
    await this.emit('charge.dispute.created', dispute);
  }

  /**
   * Tries to collect an open invoice with the customer's card; sends invoice.paid or
   * invoice.payment_failed. Every attempt raises attempt_count; a failure schedules the next one
   * (next_payment_attempt, Smart Retries) that retryPayment makes.
   */
  private async collect(subscription: StripeObject, invoice: StripeObject): Promise<boolean> {
    const declined = Number(invoice.amount_due) > 0 && this.decliningCustomers.has(String(subscription.customer));
    Object.assign(invoice, { attempted: true, attempt_count: Number(invoice.attempt_count ?? 0) + 1, next_payment_attempt: declined ? this.now + 3 * DAY : null });
    if (declined) {
      subscription.status = 'past_due';
      await this.emit('invoice.payment_failed', invoice);
      await this.emit('customer.subscription.updated', subscription);
      return false;
    }
    Object.assign(invoice, { status: 'paid', amount_paid: invoice.amount_due, amount_remaining: 0 });
    (invoice.status_transitions as Record<string, unknown>).paid_at = this.now;
    this.recordPayment(invoice);
    if (subscription.status !== 'trialing' || Number(invoice.amount_due) > 0) subscription.status = 'active';
    await this.emit('invoice.paid', invoice);
    await this.emit('customer.subscription.updated', subscription);
    return true;
  }

  /** The buyer pays on the checkout page: the subscription starts (trialing with a trial). */
  async completeCheckout(sessionId: string): Promise<StripeObject> {
    const session = this.objects.get(sessionId);
    if (!session || session.status !== 'open') throw new Error(`checkout ${sessionId} is not open`);
    const customer = (session.customer as string | null) ?? this.create('cus', 'customer', { email: null, metadata: {} }).id;
    const price = this.objects.get(String(session.line_price))!;
    const trialDays = session.trial_period_days as number | null;
    const end = trialDays ? this.now + trialDays * DAY : this.periodEnd(this.now, String((price.recurring as { interval: string }).interval));
    const subscription = this.create('sub', 'subscription', {
      customer,
      status: trialDays ? 'trialing' : 'incomplete',
      cancel_at_period_end: false,
      canceled_at: null,
      ended_at: null,
      trial_end: trialDays ? end : null,
      latest_invoice: null,
      metadata: {},
      items: { object: 'list', data: [{ id: `si_${randomBytes(6).toString('hex')}`, object: 'subscription_item', price: structuredClone(price), quantity: 1, current_period_start: this.now, current_period_end: end }], has_more: false, url: '/v1/subscription_items' },
    });
    const first = this.invoice(subscription, trialDays ? 0 : Number(price.unit_amount), 'subscription_create', this.now, end);
    Object.assign(session, { status: 'complete', payment_status: trialDays ? 'no_payment_required' : 'paid', customer, subscription: subscription.id });
    Object.assign(first, { status: 'paid', amount_paid: first.amount_due, amount_remaining: 0 });
    (first.status_transitions as Record<string, unknown>).paid_at = this.now;
    this.recordPayment(first);
    if (!trialDays) subscription.status = 'active';
    await this.emit('checkout.session.completed', session);
    await this.emit('customer.subscription.created', subscription);
    await this.emit('invoice.paid', first);
    return session;
  }

  /** Lets time pass: trial reminders, renewals (charging the card), cancellations at period end. */
  async advanceClock(seconds: number): Promise<void> {
    this.now += seconds;
    for (const subscription of [...this.objects.values()].filter((item) => item.object === 'subscription')) {
      if (subscription.status === 'canceled') continue;
      if (subscription.status === 'trialing' && !subscription.trial_will_end_sent && Number(subscription.trial_end) - 3 * DAY <= this.now) {
        subscription.trial_will_end_sent = true;
        await this.emit('customer.subscription.trial_will_end', subscription);
      }
      const item = (subscription.items as { data: Record<string, number>[] }).data[0]!;
      if (item.current_period_end! > this.now) continue;
      if (subscription.cancel_at_period_end) {
        Object.assign(subscription, { status: 'canceled', ended_at: item.current_period_end });
        await this.emit('customer.subscription.deleted', subscription);
        continue;
      }
      const price = this.price(subscription);
      const start = item.current_period_end!;
      const end = this.periodEnd(start, String((price.recurring as { interval: string }).interval));
      this.setPeriod(subscription, start, end);
      subscription.trial_end = subscription.status === 'trialing' ? subscription.trial_end : subscription.trial_end;
      if (subscription.status === 'trialing') subscription.status = 'active';
      await this.collect(subscription, this.invoice(subscription, Number(price.unit_amount), 'subscription_cycle', start, end));
    }
  }

  /** From now on the customer's card is declined (true) or accepted again (false). */
  declineCard(customerId: string, declining = true): void {
    if (declining) this.decliningCustomers.add(customerId);
    else this.decliningCustomers.delete(customerId);
  }

  /** Smart Retries: the open invoice of the subscription is tried again with the card on file. */
  async retryPayment(subscriptionId: string): Promise<StripeObject> {
    const subscription = this.objects.get(subscriptionId)!;
    const invoice = this.objects.get(String(subscription.latest_invoice))!;
    if (invoice.status !== 'open') throw new Error(`invoice ${invoice.id} is not open`);
    await this.collect(subscription, invoice);
    return invoice;
  }

  /** The customer fixed their card: the open invoice is paid now (Smart Retries or the portal). */
  async recoverPayment(subscriptionId: string): Promise<void> {
    const subscription = this.objects.get(subscriptionId)!;
    this.declineCard(String(subscription.customer), false);
    const invoice = this.objects.get(String(subscription.latest_invoice))!;
    if (invoice.status === 'open') await this.collect(subscription, invoice);
  }

  private async cancelNow(subscriptionId: string): Promise<FakeResponse> {
    const subscription = this.objects.get(subscriptionId);
    if (!subscription || subscription.object !== 'subscription') return error(404, 'invalid_request_error', `No such subscription: '${subscriptionId}'`);
    if (subscription.status === 'canceled') return error(400, 'invalid_request_error', `A canceled subscription can only update its cancellation_details and metadata.`);
    Object.assign(subscription, { status: 'canceled', canceled_at: this.now, ended_at: this.now });
    await this.emit('customer.subscription.deleted', subscription);
    return this.ok(subscription);
  }

  /** The portal's "Cancel plan": the subscription runs to its period end. */
  async cancelAtPeriodEnd(subscriptionId: string): Promise<void> {
    const subscription = this.objects.get(subscriptionId)!;
    Object.assign(subscription, { cancel_at_period_end: true, canceled_at: this.now });
    await this.emit('customer.subscription.updated', subscription);
  }

  /** The portal's plan change: the new price at once, the unused time credited (proration) and the difference invoiced now. */
  async changePrice(subscriptionId: string, priceId: string): Promise<StripeObject> {
    const subscription = this.objects.get(subscriptionId)!;
    const item = (subscription.items as { data: Record<string, any>[] }).data[0]!;
    const old = item.price as StripeObject;
    const next = this.objects.get(priceId)!;
    const remaining = (item.current_period_end - this.now) / (item.current_period_end - item.current_period_start);
    const proration = Math.round((Number(next.unit_amount) - Number(old.unit_amount)) * remaining);
    item.price = structuredClone(next);
    const invoice = this.invoice(subscription, Math.max(0, proration), 'subscription_update', this.now, item.current_period_end);
    await this.emit('customer.subscription.updated', subscription);
    await this.collect(subscription, invoice);
    return invoice;
  }

  /** The price of a lookup key, as the app created it. */
  priceByLookupKey(lookupKey: string): StripeObject | undefined {
    return [...this.objects.values()].find((item) => item.object === 'price' && item.lookup_key === lookupKey);
  }
}
