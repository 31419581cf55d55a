import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { constants } from 'node:zlib';

/** Answers smaller than this go out as they are: compressing them saves less than it costs. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;
export const COMPRESSED_REQUEST_MESSAGE = 'Compressed request bodies are not accepted; send the body without Content-Encoding.';

/**
 * Compresses API answers (br, else gzip) of 1 KB or more for clients that accept it. The built client's
 * files are compressed once at build time (.br/.gz beside each file) and sent by the static plugin as
 * they are, so nothing here recompresses them. Compressed request bodies are refused with 415: no
 * client of ours sends one, and inflating them would let a small request grow into a large body.
 */
export const compressionPlugin = fp(async (app: FastifyInstance) => {
  await app.register(fastifyCompress, {
    global: true,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
    // Quality 4: a fraction of the CPU of the default 11 for answers made per request.
    brotliOptions: { params: { [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
  // Before the body is read (so @fastify/compress never inflates one).
  app.addHook('onRequest', async (request, reply) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') return reply.code(415).send({ message: COMPRESSED_REQUEST_MESSAGE });
  });
});
