import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../../config.ts';
import { receiveMetaWebhook } from './meta-comments.service.ts';

// Meta's webhook callback for the Page `feed` and Instagram `comments` fields. GET answers the
// subscription handshake (hub.mode=subscribe, hub.verify_token, hub.challenge); POST carries the
// changes, signed with the app secret over the raw body (the integrations plugin keeps bodies raw).

export const META_WEBHOOK_PATH = '/api/webhooks/meta';

export async function metaCommentsRoutes(app: FastifyInstance, options: { config: AppConfig; orm: MikroORM }): Promise<void> {
  const meta = options.config.platforms.metaads;
  // The signature covers the bytes as sent: keep the body raw (this plugin's routes only).
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));

  app.get(META_WEBHOOK_PATH, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const expected = meta?.webhookVerifyToken;
    if (query['hub.mode'] === 'subscribe' && expected && query['hub.verify_token'] === expected && query['hub.challenge']) {
      return reply.type('text/plain').send(query['hub.challenge']);
    }
    return reply.code(403).send({ message: 'Verification failed' });
  });

  app.post(META_WEBHOOK_PATH, async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.from(typeof request.body === 'string' ? request.body : '');
    const signature = request.headers['x-hub-signature-256'];
    const answer = await receiveMetaWebhook(options.orm.em.fork(), raw, Array.isArray(signature) ? signature[0] : signature, meta?.clientSecret);
    return reply.code(answer.status).send({ message: answer.message });
  });
}
