/**
 * Procedures whose answers the server caches under (store, input, data version) and can send from its
 * HTTP fast path with an ETag (src/server/modules/answer-cache). The browser sends these alone, not in
 * a batch, so that path and its 304s apply to them.
 */
export const CACHED_ANSWER_PROCEDURES: readonly string[] = ['commerce.kpis', 'commerce.dataStatus'];
