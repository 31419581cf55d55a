import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createReadStream } from 'node:fs';
import { AppError } from '../../errors.ts';
import { sendError } from '../../plugins/rest.ts';
import { SIGN_IN_REQUIRED_MESSAGE } from '../../trpc/procedures.ts';
import type { Context } from '../../trpc/context.ts';
import { accountExportFile, ACCOUNT_EXPORT_NOT_FOUND_MESSAGE } from './account-export.ts';
import { configurePrivacyFiles, privacyRequestFile } from './privacy.service.ts';

type CreateContext = (options: { req: FastifyRequest; res: FastifyReply }) => Promise<Context>;

/** GET /api/privacy-requests/:id/download: the zip of one of the caller's stores' privacy requests, streamed from disk. */
export const privacyRoutes = fp(async (app: FastifyInstance, options: { createContext: CreateContext; dataDir: string }) => {
  configurePrivacyFiles(options.dataDir);
  /** GET /api/account-exports/:id/download: the signed-in user's own data export (never in guest mode). */
  app.get<{ Params: { id: string } }>('/api/account-exports/:id/download', async (request, reply) => {
    try {
      const context = await options.createContext({ req: request, res: reply });
      if (!context.user) throw new AppError('UNAUTHORIZED', SIGN_IN_REQUIRED_MESSAGE);
      const id = Number(request.params.id);
      if (context.guestMode || !Number.isSafeInteger(id) || id <= 0) throw new AppError('NOT_FOUND', ACCOUNT_EXPORT_NOT_FOUND_MESSAGE);
      return sendZip(reply, await accountExportFile(context.em, context.user, id));
    } catch (error) {
      return sendError(reply, error);
    }
  });

  app.get<{ Params: { id: string } }>('/api/privacy-requests/:id/download', async (request, reply) => {
    try {
      const context = await options.createContext({ req: request, res: reply });
      if (!context.user) throw new AppError('UNAUTHORIZED', SIGN_IN_REQUIRED_MESSAGE);
      const id = Number(request.params.id);
      if (!Number.isSafeInteger(id) || id <= 0) throw new AppError('NOT_FOUND', 'Privacy request not found');
      return sendZip(reply, await privacyRequestFile(context.em, context.user, context.guestMode, id));
    } catch (error) {
      return sendError(reply, error);
    }
  });
});

function sendZip(reply: FastifyReply, file: { path: string; downloadName: string }) {
  return reply
    .header('Cache-Control', 'no-store')
    .header('Content-Type', 'application/zip')
    .header('Content-Disposition', `attachment; filename="${file.downloadName}"`)
    .send(createReadStream(file.path));
}
