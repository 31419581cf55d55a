import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';
import { XMLParser } from 'fast-xml-parser';

// A loopback S3 bucket speaking the documented REST wire format for what the product image storage uses,
// path-style (http://127.0.0.1:<port>/<bucket>/<key>): PutObject, GetObject, DeleteObject, DeleteObjects
// (POST ?delete with an XML body, at most 1,000 keys, Content-MD5 or an x-amz-checksum-* header required) and
// ListObjectsV2 (?list-type=2: prefix, max-keys up to 1,000, continuation tokens). Every request must carry an
// AWS Signature Version 4 that the fake recomputes with the secret key (the SDK's own signer); errors are S3's
// XML error documents (NoSuchKey 404, AccessDenied / InvalidAccessKeyId / SignatureDoesNotMatch 403, ...).
// https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html

export const FAKE_S3_ACCESS_KEY_ID = 'AKIAFAKES3TESTKEY001';
export const FAKE_S3_SECRET_ACCESS_KEY = 'fake-s3-secret/abcdefghijklmnopqrstuvwxyz0123';
export const FAKE_S3_REGION = 'eu-west-1';
export const FAKE_S3_BUCKET = 'storepulse-images';
const MAX_KEYS = 1000;

export type S3Operation = 'PutObject' | 'GetObject' | 'DeleteObject' | 'DeleteObjects' | 'ListObjectsV2';

export interface S3Call {
  operation: S3Operation;
  key: string;
  /** DeleteObjects: the keys of its body. */
  keys: string[];
  status: number;
}

interface StoredObject {
  body: Buffer;
  contentType: string;
  lastModified: Date;
}

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytesOf = (data: SourceData): string | Buffer =>
  typeof data === 'string' ? data : ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data);

/** node:crypto as the signer's sha256 (a hash, or an HMAC when given a secret). */
class NodeSha256 {
  private hash: Hash | Hmac;
  private readonly secret: string | Buffer | undefined;
  constructor(secret?: SourceData) {
    this.secret = secret === undefined ? undefined : bytesOf(secret);
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', this.secret);
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (char) => `&#${char.charCodeAt(0)};`);
const etagOf = (body: Buffer) => `"${createHash('md5').update(body).digest('hex')}"`;

class S3Failure extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export class FakeS3 {
  readonly objects = new Map<string, StoredObject>();
  readonly calls: S3Call[] = [];
  readonly bucket = FAKE_S3_BUCKET;
  url = '';
  private server: Server | null = null;
  private readonly faults: { operation: S3Operation; code: string; status: number }[] = [];

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** An object put straight into the bucket (no request), e.g. thousands of tiny ones. */
  putDirect(key: string, body: Buffer | string): void {
    this.objects.set(key, { body: Buffer.from(body), contentType: 'application/octet-stream', lastModified: new Date() });
  }

  keysUnder(prefix: string): string[] {
    return [...this.objects.keys()].filter((key) => key.startsWith(prefix)).sort();
  }

  /** The next request of this operation fails with S3's error (e.g. AccessDenied 403). */
  failNext(operation: S3Operation, code: string, status: number): void {
    this.faults.push({ operation, code, status });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(request.url ?? '/', 'http://fake');
    const [bucket = '', ...keyParts] = url.pathname.slice(1).split('/');
    const key = decodeURIComponent(keyParts.join('/'));
    const call: S3Call = { operation: 'GetObject', key, keys: [], status: 200 };
    this.calls.push(call);
    try {
      const operation = operationOf(request.method ?? '', key, url.searchParams);
      call.operation = operation;
      await this.checkSignature(request, url, body);
      if (bucket !== this.bucket) throw new S3Failure(404, 'NoSuchBucket', 'The specified bucket does not exist');
      const faultIndex = this.faults.findIndex((fault) => fault.operation === operation);
      if (faultIndex >= 0) {
        const [fault] = this.faults.splice(faultIndex, 1);
        throw new S3Failure(fault!.status, fault!.code, 'Refused by the test.');
      }
      this.answer(operation, key, url.searchParams, request, body, response, call);
    } catch (error) {
      const failure = error instanceof S3Failure ? error : new S3Failure(500, 'InternalError', (error as Error).message);
      call.status = failure.status;
      response
        .writeHead(failure.status, { 'content-type': 'application/xml', 'x-amz-request-id': 'FAKE' })
        .end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${failure.code}</Code><Message>${escapeXml(failure.message)}</Message>` +
            `<Resource>${escapeXml(url.pathname)}</Resource><RequestId>FAKE</RequestId></Error>`,
        );
    }
  }

  private answer(operation: S3Operation, key: string, query: URLSearchParams, request: IncomingMessage, body: Buffer, response: ServerResponse, call: S3Call): void {
    switch (operation) {
      case 'PutObject': {
        this.objects.set(key, { body, contentType: String(request.headers['content-type'] ?? 'application/octet-stream'), lastModified: new Date() });
        response.writeHead(200, { etag: etagOf(body) }).end();
        return;
      }
      case 'GetObject': {
        const object = this.objects.get(key);
        if (!object) throw new S3Failure(404, 'NoSuchKey', 'The specified key does not exist.');
        response
          .writeHead(200, { 'content-type': object.contentType, 'content-length': String(object.body.length), etag: etagOf(object.body), 'last-modified': object.lastModified.toUTCString() })
          .end(object.body);
        return;
      }
      case 'DeleteObject': {
        this.objects.delete(key);
        response.writeHead(204).end();
        return;
      }
      case 'DeleteObjects': {
        if (!request.headers['content-md5'] && !Object.keys(request.headers).some((name) => name.startsWith('x-amz-checksum-')))
          throw new S3Failure(400, 'InvalidRequest', 'Missing required header for this request: Content-MD5');
        const parsed = new XMLParser({ isArray: (name) => name === 'Object' }).parse(body.toString('utf8')) as { Delete?: { Object?: { Key: string | number }[]; Quiet?: boolean } };
        const keys = (parsed.Delete?.Object ?? []).map((object) => String(object.Key));
        call.keys = keys;
        if (keys.length === 0 || keys.length > MAX_KEYS) throw new S3Failure(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema');
        for (const deleted of keys) this.objects.delete(deleted);
        const quiet = String(parsed.Delete?.Quiet) === 'true';
        const deletedXml = quiet ? '' : keys.map((deleted) => `<Deleted><Key>${escapeXml(deleted)}</Key></Deleted>`).join('');
        response.writeHead(200, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${deletedXml}</DeleteResult>`);
        return;
      }
      case 'ListObjectsV2': {
        const prefix = query.get('prefix') ?? '';
        const maxKeys = Math.min(MAX_KEYS, Number(query.get('max-keys') ?? MAX_KEYS));
        const token = query.get('continuation-token');
        const after = token ? Buffer.from(token, 'base64url').toString('utf8') : (query.get('start-after') ?? '');
        const matching = this.keysUnder(prefix).filter((candidate) => candidate > after);
        const page = matching.slice(0, maxKeys);
        const truncated = matching.length > page.length;
        const contents = page
          .map((listed) => {
            const object = this.objects.get(listed)!;
            return `<Contents><Key>${escapeXml(listed)}</Key><LastModified>${object.lastModified.toISOString()}</LastModified><ETag>${escapeXml(etagOf(object.body))}</ETag><Size>${object.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
          })
          .join('');
        response.writeHead(200, { 'content-type': 'application/xml' }).end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${this.bucket}</Name>` +
            `<Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>` +
            (token ? `<ContinuationToken>${escapeXml(token)}</ContinuationToken>` : '') +
            (truncated ? `<NextContinuationToken>${Buffer.from(page.at(-1)!).toString('base64url')}</NextContinuationToken>` : '') +
            `${contents}</ListBucketResult>`,
        );
        return;
      }
    }
  }

  /** Authorization: AWS4-HMAC-SHA256 Credential=<key id>/<date>/<region>/s3/aws4_request, SignedHeaders=..., Signature=... */
  private async checkSignature(request: IncomingMessage, url: URL, body: Buffer): Promise<void> {
    const authorization = String(request.headers.authorization ?? '');
    const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
    if (!match) throw new S3Failure(403, 'AccessDenied', 'Access Denied');
    const [, accessKeyId, , region, service, signedHeaders] = match;
    if (accessKeyId !== FAKE_S3_ACCESS_KEY_ID) throw new S3Failure(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    if (service !== 's3' || region !== FAKE_S3_REGION) throw new S3Failure(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; the region '${region}' is wrong; expecting '${FAKE_S3_REGION}'`);
    const contentSha256 = request.headers['x-amz-content-sha256'];
    if (typeof contentSha256 !== 'string') throw new S3Failure(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
    if (/^[0-9a-f]{64}$/.test(contentSha256) && contentSha256 !== createHash('sha256').update(body).digest('hex'))
      throw new S3Failure(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
    const amzDate = String(request.headers['x-amz-date'] ?? '');
    const dateParts = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
    if (!dateParts) throw new S3Failure(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
    const signingDate = new Date(Date.UTC(+dateParts[1]!, +dateParts[2]! - 1, +dateParts[3]!, +dateParts[4]!, +dateParts[5]!, +dateParts[6]!));

    const headers: Record<string, string> = {};
    for (const name of signedHeaders!.split(';')) headers[name] = String(request.headers[name] ?? '');
    const query: Record<string, string> = {};
    for (const [name, value] of url.searchParams) query[name] = value;
    const signer = new SignatureV4({
      credentials: { accessKeyId: FAKE_S3_ACCESS_KEY_ID, secretAccessKey: FAKE_S3_SECRET_ACCESS_KEY },
      region: FAKE_S3_REGION,
      service: 's3',
      sha256: NodeSha256,
      uriEscapePath: false,
    });
    const [hostname = '', port] = String(request.headers.host ?? '').split(':');
    const unsigned = { method: request.method ?? 'GET', protocol: 'http:', hostname, port: port ? Number(port) : undefined, path: url.pathname, query, headers } as HttpRequest;
    const expected = await signer.sign(unsigned, { signingDate, signableHeaders: new Set(signedHeaders!.split(';')) });
    if (expected.headers.authorization !== authorization)
      throw new S3Failure(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
  }
}

function operationOf(method: string, key: string, query: URLSearchParams): S3Operation {
  if (method === 'POST' && query.has('delete')) return 'DeleteObjects';
  if (method === 'GET' && !key && query.get('list-type') === '2') return 'ListObjectsV2';
  if (method === 'PUT' && key) return 'PutObject';
  if (method === 'GET' && key) return 'GetObject';
  if (method === 'DELETE' && key) return 'DeleteObject';
  throw new S3Failure(501, 'NotImplemented', `${method} ${key ? 'object' : 'bucket'} is not implemented by this fake`);
}
