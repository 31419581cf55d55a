import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import type { PaymentProvider } from './payment-provider.ts';
import type { StripePaymentProvider } from './stripe-billing.ts';
import { configureStripeEventsJob, receiveStripeWebhook } from './stripe-events.ts';

/** Puts a job on the Stripe events queue (main.ts wires pg-boss in; the test harness runs the job itself). */
let notifyStripeEvents: () => Promise<unknown> = async () => undefined;
export function setStripeEventsNotifier(notify: () => Promise<unknown>): void {
  notifyStripeEvents = notify;
}

/**
 * POST /api/webhooks/stripe. The signature is computed over the exact bytes Stripe sent, so this
 * plugin (not wrapped with fastify-plugin) keeps bodies as Buffers.
 */
export async function stripeWebhookRoutes(app: FastifyInstance, options: { orm: MikroORM; provider: PaymentProvider }): Promise<void> {
  configureStripeEventsJob(options.provider.id === 'stripe' ? (options.provider as StripePaymentProvider).stripe : null);
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));
  app.post('/api/webhooks/stripe', async (request, reply) => {
    if (options.provider.id !== 'stripe') return reply.code(404).send({ message: 'Stripe is not configured on this server.' });
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const signature = request.headers['stripe-signature'];
    const answer = await receiveStripeWebhook(options.orm.em.fork(), options.provider as StripePaymentProvider, body, typeof signature === 'string' ? signature : undefined);
    if (answer.stored) await notifyStripeEvents().catch((error: unknown) => request.log.error({ err: error }, 'Could not queue the Stripe events job'));
    return reply.code(answer.status).send({ message: answer.message });
  });
}
