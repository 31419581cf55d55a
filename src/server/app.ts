import { answerCachePlugin } from './modules/answer-cache/answer-cache-plugin.ts';
import { llmProviderFor } from './modules/llm/llm-provider.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AppConfig, TrustProxySetting } from './config.ts';
import { INTERNAL_ERROR_MESSAGE } from './errors.ts';
import { randomSecret, secretFromDataDir } from './secrets.ts';
import { restPlugin } from './plugins/rest.ts';
import { ordersExportPlugin } from './modules/orders/orders.export.ts';
import { pageReviewerRoutes } from './modules/page-reviewer/page-reviewer.routes.ts';
import { configureMail } from './modules/email/mail-settings.ts';
import { configureUnsubscribeSigning } from './modules/email/unsubscribe.ts';
import { unsubscribeRoutes } from './modules/email/unsubscribe.routes.ts';
import { productImagesRoutes } from './modules/product-images/product-images.routes.ts';
import { LOG_SERIALIZERS, securityPlugin } from './plugins/security.ts';
import { paymentProviderFor } from './modules/subscriptions/payment-provider.ts';
import { sessionPlugin } from './plugins/session.ts';
import { compressionPlugin } from './plugins/compression.ts';
import { spaPlugin } from './plugins/spa.ts';
import { reportsRoutes } from './modules/reports/reports.routes.ts';
import { privacyRoutes } from './modules/privacy/privacy.routes.ts';
import { financeRoutes } from './modules/finance/finance.routes.ts';
import { metaCommentsRoutes } from './modules/meta-comments/meta-comments.routes.ts';
import { shoppingFeedRoutes } from './modules/shopping-optimizer/shopping-optimizer.routes.ts';
import { integrationsRoutes } from './modules/integrations/integrations.routes.ts';
import { stripeWebhookRoutes } from './modules/subscriptions/stripe-webhook.routes.ts';
import { createAuthLimiters, deleteExpiredAttempts } from './modules/auth/attempt-limiter.ts';
import { storedOrigin } from './public-origin.ts';
import { trackingCollectorPlugin, trackingPixelPlugin } from './modules/tracking/collector.routes.ts';
import { contextFactory, createServices, type AppServices } from './trpc/context.ts';
import { appRouter, type AppRouter } from './trpc/router.ts';

const EXPIRED_ATTEMPTS_SWEEP_MS = 60 * 60_000;

export interface BuildAppOptions {
  config: AppConfig;
  orm: MikroORM;
  services?: AppServices;
  logger?: FastifyServerOptions['logger'];
}

/** SESSION_SECRET, or one generated into the data directory on first run and reused after. */
export function resolveSessionSecret(config: Pick<AppConfig, 'sessionSecret' | 'dataDir'>): string {
  if (config.sessionSecret) return config.sessionSecret;
  return secretFromDataDir(config.dataDir, 'session-secret', { generate: () => randomSecret(48), isValid: (value) => value.length >= 32 });
}

/**
 * TRUST_PROXY (config.ts parseTrustProxy) as Fastify's `trustProxy`. A hop count becomes a trust
 * function: Fastify 5.12 treats a number as "trust nobody". proxy-addr numbers the TCP peer hop 0
 * and X-Forwarded-For's entries from the right 1, 2, ...; with N proxies the first N are theirs.
 */
export function fastifyTrustProxy(setting: TrustProxySetting): NonNullable<FastifyServerOptions['trustProxy']> {
  if (typeof setting === 'boolean') return setting;
  if ('hops' in setting) {
    const { hops } = setting;
    return hops === 0 ? false : (_address: string, hop: number) => hop < hops;
  }
  return setting.addresses;
}

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, orm } = options;
  const app = Fastify({
    // Request lines are logged with the secrets of links (reset, invitation, OAuth) blanked out.
    logger: options.logger ?? { level: config.logLevel, serializers: LOG_SERIALIZERS },
    trustProxy: fastifyTrustProxy(config.trustProxy),
    routerOptions: { maxParamLength: 5000 },
    bodyLimit: 1024 * 1024,
  });
  const services = options.services ?? createServices({ authLimiters: createAuthLimiters(config.authRateLimits), paymentProvider: paymentProviderFor(config), llm: llmProviderFor(config.llm), affiliates: config.affiliates });
  const createContext = contextFactory(() => orm.em.fork(), services, { publicUrl: config.publicUrl, allowedHosts: config.allowedHosts });
  configureMail(config.mail);
  configureUnsubscribeSigning(resolveSessionSecret(config));
  const generated = [!config.sessionSecret && 'SESSION_SECRET', !config.encryptionKey && 'ENCRYPTION_KEY'].filter(Boolean);
  if (generated.length > 0 && config.databaseUrl && config.env === 'production') {
    // Several app processes on one database (README, "Running several app processes") must share them.
    app.log.warn(
      `${generated.join(' and ')} not set: this process uses values generated into ${config.dataDir}. Every other app process on this database must use the same ones (a session signed here is refused there, credentials sealed there cannot be opened here): set ${generated.join(' and ')} to the same values on all of them.`,
    );
  }

  if (!config.publicUrl && !config.allowedHosts) {
    app.addHook('onReady', async () => {
      const origin = await storedOrigin(orm.em.fork());
      app.log.warn(
        origin
          ? `PUBLIC_URL is not set: links in e-mails and OAuth redirects use ${origin}, the address of the first sign-in. Set PUBLIC_URL to choose it.`
          : 'PUBLIC_URL is not set: links in e-mails and OAuth redirects will use the address of the first registration or sign-in. Set PUBLIC_URL to choose it.',
      );
    });
  }

  app.setErrorHandler((error: { statusCode?: number; message?: string }, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'Request failed');
    return reply.code(status).send({ message: status >= 500 ? INTERNAL_ERROR_MESSAGE : error.message });
  });

  // The collector in a context of its own: none of the app's hooks run on its requests (collector.routes.ts).
  await app.register(trackingCollectorPlugin, { config, orm });
  // Everything else in a sibling context: Fastify hands a hook added later to the contexts below the
  // one it is added to, so only a sibling keeps the hooks below (helmet, answer cache, sessions,
  // compression) off the collector's requests.
  await app.register(async (main: FastifyInstance) => {
    await main.register(securityPlugin, { allowedHosts: config.allowedHosts });
    // Before the session plugin: a granted cached answer goes out without reading the session (answer-cache-plugin.ts).
    await main.register(answerCachePlugin, { orm, answers: services.answers });
    await main.register(sessionPlugin, { orm, secret: resolveSessionSecret(config) });
    await main.register(compressionPlugin);

    await main.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: {
        router: appRouter,
        createContext,
        onError({ error, path: procedurePath, req }) {
          if (error.code === 'INTERNAL_SERVER_ERROR') req.log.error({ err: error.cause ?? error, procedurePath }, 'Procedure failed');
        },
      } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
    });
    await main.register(restPlugin, { createContext });
    await main.register(financeRoutes, { createContext });
    await main.register(reportsRoutes, { createContext });
    await main.register(ordersExportPlugin, { createContext });
    await main.register(pageReviewerRoutes, { createContext });
    await main.register(unsubscribeRoutes, { orm });
    await main.register(productImagesRoutes, { createContext, dataDir: config.dataDir });
    await main.register(integrationsRoutes, { createContext, config, orm });
    await main.register(metaCommentsRoutes, { config, orm });
    await main.register(stripeWebhookRoutes, { orm, provider: services.paymentProvider });
    await main.register(shoppingFeedRoutes, { createContext });
    await main.register(privacyRoutes, { createContext, dataDir: config.dataDir });
    await main.register(trackingPixelPlugin);
    await main.register(spaPlugin, { clientDistDir: config.clientDistDir });
    main.get('/healthz', async () => ({ ok: true }));
  });

  const attemptSweep = setInterval(() => {
    deleteExpiredAttempts(orm.em.fork()).catch((error: unknown) => app.log.warn({ err: error }, 'Could not delete expired rate-limit counters'));
  }, EXPIRED_ATTEMPTS_SWEEP_MS);
  attemptSweep.unref();
  app.addHook('onClose', async () => clearInterval(attemptSweep));

  return app;
}
