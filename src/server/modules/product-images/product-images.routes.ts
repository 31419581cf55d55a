import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Zip, ZipPassThrough } from 'fflate';
import { MAX_SOURCE_BYTES, UPLOAD_TOO_LARGE_MESSAGE, UPLOAD_TYPE_MESSAGE } from '../../../shared/product-images.ts';
import { sendError } from '../../plugins/rest.ts';
import type { Context } from '../../trpc/context.ts';
import { createCaller } from '../../trpc/router.ts';
import { configureImageStorage, readImageFile, type ImageExtension } from './image-storage.ts';

type CreateContext = (options: { req: FastifyRequest; res: FastifyReply }) => Promise<Context>;

// Files of the product image generator, for the caller's active store only (the procedures' tools
// rule and store scoping, through productImages.fileScope / upload):
//   GET  /api/product-images/:id.:ext       one image (webp or jpg), as a download
//   GET  /api/product-images/zip?ids=1,2&ext=jpg   several, streamed as one zip
//   POST /api/product-images/upload?name=...&options=<json>  the raw file as the body (the tRPC
//        transport's 1 MB JSON limit is too small for photos; this adapter only translates)

const EXTENSIONS: readonly ImageExtension[] = ['webp', 'jpg'];
const CONTENT_TYPES: Record<ImageExtension, string> = { webp: 'image/webp', jpg: 'image/jpeg' };

/** A file name from an image's title: letters, digits and dashes, never a path. */
export function downloadName(title: string, id: number, format: string, extension: ImageExtension): string {
  const base = title.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().replace(/\s+/g, '-').toLowerCase().slice(0, 60) || 'image';
  return `${base}-${format}-${id}.${extension}`;
}

export async function productImagesRoutes(app: FastifyInstance, options: { createContext: CreateContext; dataDir: string }): Promise<void> {
  configureImageStorage(`${options.dataDir}/product-images`);
  // Encapsulated (no fastify-plugin): this parser only applies to this plugin's routes. Any declared type is
  // read as bytes: what the file is, sharp decides from its content (a GIF gets the clear refusal, not a 415).
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_SOURCE_BYTES + 1 }, (_request, body, done) => done(null, body));
  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    if (error.statusCode === 413) return reply.code(413).send({ message: UPLOAD_TOO_LARGE_MESSAGE });
    if (error.statusCode === 415) return reply.code(415).send({ message: UPLOAD_TYPE_MESSAGE });
    return sendError(reply, error);
  });

  app.get<{ Params: { file: string } }>('/api/product-images/:file', async (request, reply) => {
    reply.header('Cache-Control', 'private, no-store');
    try {
      const match = /^(\d{1,12})\.(webp|jpg)$/.exec(request.params.file);
      if (!match) return reply.code(404).send({ message: 'No such image file.' });
      const id = Number(match[1]);
      const extension = match[2] as ImageExtension;
      const context = await options.createContext({ req: request, res: reply });
      const scope = await createCaller(context).productImages.fileScope({ ids: [id] });
      const image = scope.images[0]!;
      const file = await readImageFile(scope.storeId, id, extension);
      return reply
        .type(CONTENT_TYPES[extension])
        .header('Content-Disposition', `attachment; filename="${downloadName(image.title, id, image.format, extension)}"`)
        .send(file);
    } catch (error) {
      return sendError(reply, error);
    }
  });

  app.get<{ Querystring: { ids?: string; ext?: string } }>('/api/product-images/zip', async (request, reply) => {
    try {
      const ids = (request.query.ids ?? '').split(',').filter(Boolean).map(Number);
      const extension = (EXTENSIONS as readonly string[]).includes(request.query.ext ?? '') ? (request.query.ext as ImageExtension) : 'jpg';
      const context = await options.createContext({ req: request, res: reply });
      const scope = await createCaller(context).productImages.fileScope({ ids });
      const out = new PassThrough();
      const zip = new Zip((error, chunk, final) => {
        if (error) return out.destroy(error);
        out.write(chunk);
        if (final) out.end();
      });
      // Files are added one after another, each streamed from the storage (JPEG/WebP are stored, not deflated again).
      void (async () => {
        for (const image of scope.images) {
          const entry = new ZipPassThrough(downloadName(image.title, image.id, image.format, extension));
          zip.add(entry);
          for await (const chunk of await readImageFile(scope.storeId, image.id, extension)) entry.push(chunk as Uint8Array);
          entry.push(new Uint8Array(0), true);
        }
        zip.end();
      })().catch((error: unknown) => out.destroy(error as Error));
      reply.header('Cache-Control', 'private, no-store');
      reply.header('Content-Disposition', `attachment; filename="product-images-${scope.storeId}.zip"`);
      return reply.type('application/zip').send(out);
    } catch (error) {
      return sendError(reply, error);
    }
  });

  app.post<{ Querystring: { name?: string; options?: string }; Body: Buffer }>('/api/product-images/upload', async (request, reply) => {
    try {
      // The options are checked by the procedure's input schema, like every other input (a 400 with the field).
      let settings: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(request.query.options ?? '{}');
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) settings = parsed as Record<string, unknown>;
      } catch {
        settings = {};
      }
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const context = await options.createContext({ req: request, res: reply });
      const input = { ...settings, fileName: request.query.name || 'upload', dataBase64: body.toString('base64') } as Parameters<ReturnType<typeof createCaller>['productImages']['upload']>[0];
      const images = await createCaller(context).productImages.upload(input);
      return reply.send({ images });
    } catch (error) {
      return sendError(reply, error);
    }
  });
}
