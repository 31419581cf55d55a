import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createReadStream } from 'node:fs';
import { AppError } from '../../errors.ts';
import { sendError } from '../../plugins/rest.ts';
import { SIGN_IN_REQUIRED_MESSAGE } from '../../trpc/procedures.ts';
import type { Context } from '../../trpc/context.ts';
import { configurePrivacyFiles, privacyRequestFile } from './privacy.service.ts';

type CreateContext = (options: { req: FastifyRequest; res: FastifyReply }) => Promise<Context>;

/** GET /api/privacy-requests/:id/download: the zip of one of the caller's stores' privacy requests, streamed from disk. */
export const privacyRoutes = fp(async (app: FastifyInstance, options: { createContext: CreateContext; dataDir: string }) => {
  configurePrivacyFiles(options.dataDir);
  app.get<{ Params: { id: string } }>('/api/privacy-requests/:id/download', async (request, reply) => {
    try {
      const context = await options.createContext({ req: request, res: reply });
      if (!context.user) throw new AppError('UNAUTHORIZED', SIGN_IN_REQUIRED_MESSAGE);
      const id = Number(request.params.id);
      if (!Number.isSafeInteger(id) || id <= 0) throw new AppError('NOT_FOUND', 'Privacy request not found');
      const file = await privacyRequestFile(context.em, context.user, context.guestMode, id);
      return reply
        .header('Cache-Control', 'no-store')
        .header('Content-Type', 'application/zip')
        .header('Content-Disposition', `attachment; filename="${file.downloadName}"`)
        .send(createReadStream(file.path));
    } catch (error) {
      return sendError(reply, error);
    }
  });
});
