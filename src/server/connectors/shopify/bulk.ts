import { createInterface } from 'node:readline';
import { openOutboundStream, OutboundRefusedError } from '../../outbound/outbound-http.ts';
import { ConnectorRequestError, MalformedResponseError } from '../connector.ts';
import { SHOPIFY, shopifyOrderNode, type ShopifyOrderNode } from './client.ts';

// Reading a bulk operation's JSONL file (https://shopify.dev/docs/api/usage/bulk-operations/queries,
// "Download result data"): one JSON object per line, an order's own line first, then the nodes of its
// connections (line items; a refund's lines, shipping lines and adjustments), each with `__parentId`,
// "listed after their parent, not necessarily directly after". The file is streamed, never held whole
// (100,000 orders are hundreds of MB): an order is handed out when the next order's line arrives, and
// a child that arrives after its order was handed out makes that order be read again by id.
//
// The open stream is kept between fetchBatch calls of one process (keyed by operation); a sync resumed
// elsewhere (after a crash) opens the file again and skips the lines already handed out.

export interface BulkStreamPosition {
  operationId: string;
  url: string;
  /** Lines of the file already handed out (whole orders). */
  linesDone: number;
}

/** The bulk file's URL no longer serves it (it expires seven days after the operation completed). */
export class BulkFileGoneError extends Error {}

interface OpenStream {
  url: string;
  lines: AsyncIterator<string>;
  /** Lines taken from the file so far. */
  linesRead: number;
  /** Lines handed out (the position a cursor records). */
  linesDone: number;
  /** An order's line read while filling the previous batch, handed out with the next one. */
  pending: string | null;
  /** Orders handed out by this stream, and each handed-out refund's order, to place late children. */
  handedOut: Set<string>;
  refundOrder: Map<string, string>;
  lastUsedMs: number;
}

const streams = new Map<string, OpenStream>();
/** A stream no batch has read from for this long belongs to a sync that stopped (cancelled, failed): closed. */
const IDLE_STREAM_MS = 15 * 60_000;

function closeIdleStreams(now: number): void {
  for (const [operationId, stream] of streams) {
    if (now - stream.lastUsedMs < IDLE_STREAM_MS) continue;
    streams.delete(operationId);
    void stream.lines.return?.();
  }
}

type Json = Record<string, unknown>;

async function open(position: BulkStreamPosition): Promise<OpenStream> {
  // The URL comes from Shopify's answer: it is fetched like every platform address (only public
  // addresses, redirects checked, 2 minutes for the answer to start).
  const response = await openOutboundStream(position.url, {}, { timeoutMs: 120_000 }).catch((error: unknown) => {
    if (error instanceof OutboundRefusedError) throw Object.assign(new ConnectorRequestError(SHOPIFY, 0, `the bulk file's address was refused: ${error.message}`), { cause: error });
    throw error;
  });
  if (response.status === 403 || response.status === 404 || response.status === 410) {
    response.body.destroy();
    throw new BulkFileGoneError(`bulk file answered ${response.status}`);
  }
  if (response.status < 200 || response.status > 299) {
    response.body.destroy();
    throw new MalformedResponseError(SHOPIFY, `the bulk file could not be downloaded (${response.status})`);
  }
  const input = response.body;
  const stream: OpenStream = {
    url: position.url,
    lines: createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator](),
    linesRead: 0,
    linesDone: 0,
    pending: null,
    handedOut: new Set(),
    refundOrder: new Map(),
    lastUsedMs: Date.now(),
  };
  while (stream.linesRead < position.linesDone) {
    const { done } = await stream.lines.next();
    if (done) break;
    stream.linesRead++;
  }
  stream.linesDone = stream.linesRead;
  return stream;
}

function parseLine(line: string, number: number): Json {
  try {
    return JSON.parse(line) as Json;
  } catch {
    throw new MalformedResponseError(SHOPIFY, `bulk file line ${number} is not JSON`);
  }
}

/** An order's own line, with empty connections for its children to fill. */
function orderShell(line: Json): Json {
  const refunds = Array.isArray(line.refunds) ? (line.refunds as Json[]) : [];
  return {
    ...line,
    lineItems: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] },
    refunds: refunds.map((refund) => ({ ...refund, refundLineItems: { nodes: [] }, refundShippingLines: { nodes: [] }, orderAdjustments: { nodes: [] } })),
  };
}

function attach(order: Json, child: Json): boolean {
  const parent = child.__parentId;
  const { __parentId: _parent, __typename: typename, ...fields } = child;
  if (parent === order.id && typename === 'LineItem') {
    (order.lineItems as { nodes: Json[] }).nodes.push(fields);
    return true;
  }
  const refund = (order.refunds as Json[]).find((entry) => entry.id === parent);
  if (!refund) return false;
  const connection = typename === 'RefundLineItem' ? 'refundLineItems' : typename === 'RefundShippingLine' ? 'refundShippingLines' : typename === 'OrderAdjustment' ? 'orderAdjustments' : null;
  if (!connection) return false;
  (refund[connection] as { nodes: Json[] }).nodes.push(fields);
  return true;
}

export interface BulkChunk {
  orders: ShopifyOrderNode[];
  /** Orders handed out earlier whose children came later: to be read again by id. */
  revisit: string[];
  linesDone: number;
  done: boolean;
}

/** The file of a completed operation, positioned after `linesDone` lines; throws BulkFileGoneError when expired. */
export async function openBulkStream(position: BulkStreamPosition): Promise<{ next(maxOrders: number): Promise<BulkChunk> }> {
  closeIdleStreams(Date.now());
  let stream = streams.get(position.operationId);
  if (!stream || stream.url !== position.url || stream.linesDone !== position.linesDone) {
    if (stream) void stream.lines.return?.();
    stream = await open(position);
    streams.set(position.operationId, stream);
  }
  const current = stream;
  current.lastUsedMs = Date.now();
  return {
    async next(maxOrders) {
      const orders: ShopifyOrderNode[] = [];
      const revisit = new Set<string>();
      let building: Json | null = null;
      const handOut = (order: Json) => {
        const parsed = shopifyOrderNode.safeParse(order);
        if (!parsed.success) throw new MalformedResponseError(SHOPIFY, `bulk order ${String(order.id)}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);
        orders.push(parsed.data);
        current.handedOut.add(String(order.id));
        for (const refund of order.refunds as Json[]) current.refundOrder.set(String(refund.id), String(order.id));
      };
      for (;;) {
        let text = current.pending;
        current.pending = null;
        if (text === null) {
          const { value, done } = await current.lines.next();
          if (done) {
            if (building) handOut(building);
            current.linesDone = current.linesRead;
            streams.delete(position.operationId);
            return { orders, revisit: [...revisit], linesDone: current.linesDone, done: true };
          }
          current.linesRead++;
          text = value;
        }
        if (text.trim() === '') continue;
        const line = parseLine(text, current.linesRead);
        if (line.__parentId === undefined) {
          if (building) {
            handOut(building);
            building = null;
            if (orders.length >= maxOrders) {
              // This order's line starts the next batch.
              current.pending = text;
              current.linesDone = current.linesRead - 1;
              return { orders, revisit: [...revisit], linesDone: current.linesDone, done: false };
            }
          }
          building = orderShell(line);
          continue;
        }
        if (building && attach(building, line)) continue;
        const parent = String(line.__parentId);
        const orderId = current.handedOut.has(parent) ? parent : current.refundOrder.get(parent);
        if (orderId) revisit.add(orderId);
        else throw new MalformedResponseError(SHOPIFY, `bulk file line ${current.linesRead} names a parent (${parent}) that is not in the file`);
      }
    },
  };
}
