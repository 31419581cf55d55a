import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { platformKeySchema } from '../../../shared/integrations.ts';
import type { AppConfig } from '../../config.ts';
import { sendError } from '../../plugins/rest.ts';
import type { Context } from '../../trpc/context.ts';
import { createCaller } from '../../trpc/router.ts';
import { formatAllowList } from '../../outbound/address-policy.ts';
import { configureOutbound } from '../../outbound/outbound-http.ts';
import { configureIntegrations, integrationsSettingsFrom } from './integrations-runtime.ts';
import { completeOAuth, OAuthCallbackError } from './integrations.service.ts';
import { receiveShopifyWebhook, receiveWooCommerceWebhook } from './webhooks.ts';

type CreateContext = (options: { req: FastifyRequest; res: FastifyReply }) => Promise<Context>;

/** An uploaded e-mail CSV may be 5 MB of text; JSON escaping adds a little. */
const EMAIL_CSV_BODY_LIMIT = 6 * 1024 * 1024;
const CONNECT_FAILED_MESSAGE = 'Connecting failed. Try again in a moment.';
export const EMAIL_CSV_MEDIA_TYPE_MESSAGE = 'Send the file as JSON with Content-Type: application/json: { "fileName": "...", "csvText": "..." }';

/**
 * The integrations' HTTP routes outside tRPC: the OAuth callback, the webhook receivers (signed over
 * the raw body, so this plugin keeps JSON bodies as Buffers: it is not wrapped with fastify-plugin
 * and its parser stays inside it) and the large CSV upload. It also configures the sync engine.
 */
export async function integrationsRoutes(app: FastifyInstance, options: { createContext: CreateContext; config: AppConfig; orm: MikroORM }): Promise<void> {
  configureIntegrations(() => integrationsSettingsFrom(options.config));
  // Every connector request, webhook look-up and bulk download goes out through src/server/outbound/.
  configureOutbound({ allowHosts: options.config.outboundAllowHosts, env: options.config.env });
  if (options.config.outboundAllowHosts.length > 0 && options.config.env === 'production') {
    app.log.warn(`OUTBOUND_ALLOW_HOSTS lets platform requests reach non-public addresses: ${formatAllowList(options.config.outboundAllowHosts)}`);
  }
  const fork = () => options.orm.em.fork();

  app.addContentTypeParser(['application/json', 'application/x-www-form-urlencoded', 'text/plain'], { parseAs: 'buffer', bodyLimit: EMAIL_CSV_BODY_LIMIT }, (_request, body, done) => done(null, body));

  app.get('/api/integrations/oauth/:platform/callback', async (request, reply) => {
    const platform = platformKeySchema.safeParse((request.params as { platform: string }).platform);
    const query = Object.fromEntries(Object.entries(request.query as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    try {
      if (!platform.success) throw new OAuthCallbackError('Unknown platform.');
      const context = await options.createContext({ req: request, res: reply });
      await completeOAuth(context.em, platform.data, query, { sessionUserId: context.sessionUser?.id ?? null, sessionKey: context.sessionKey });
      return reply.redirect(`/integrations?connected=${platform.data}`);
    } catch (error) {
      const message = error instanceof OAuthCallbackError ? error.message : CONNECT_FAILED_MESSAGE;
      if (!(error instanceof OAuthCallbackError)) request.log.error({ err: error }, 'OAuth callback failed');
      return reply.redirect(`/integrations?error=${encodeURIComponent(message)}`);
    }
  });

  app.post('/api/webhooks/shopify', async (request, reply) => {
    const answer = await receiveShopifyWebhook(fork(), bodyBuffer(request), request.headers);
    return reply.code(answer.status).send({ message: answer.message });
  });

  app.post('/api/webhooks/woocommerce/:connectionId', async (request, reply) => {
    const connectionId = Number((request.params as { connectionId: string }).connectionId);
    const answer = await receiveWooCommerceWebhook(fork(), connectionId, bodyBuffer(request), request.headers);
    return reply.code(answer.status).send({ message: answer.message });
  });

  /** integrations.uploadEmailCsv for files above the app's 1 MB JSON limit: body `{ fileName, csvText }`. */
  app.post('/api/integrations/email-csv', { bodyLimit: EMAIL_CSV_BODY_LIMIT }, async (request, reply) => {
    try {
      // Documented as JSON (README "Platform integrations"): other types are refused, not guessed at.
      const mediaType = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (mediaType !== 'application/json') return reply.code(415).send({ message: EMAIL_CSV_MEDIA_TYPE_MESSAGE });
      let input: unknown;
      try {
        input = JSON.parse(bodyBuffer(request).toString('utf8'));
      } catch {
        return reply.code(400).send({ message: 'The body must be JSON: { "fileName": "...", "csvText": "..." }' });
      }
      const caller = createCaller(await options.createContext({ req: request, res: reply }));
      return reply.send(await caller.integrations.uploadEmailCsv(input as never));
    } catch (error) {
      return sendError(reply, error);
    }
  });
}

function bodyBuffer(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.from(typeof request.body === 'string' ? request.body : '');
}
