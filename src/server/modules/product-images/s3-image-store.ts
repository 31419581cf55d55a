import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException,
} from '@aws-sdk/client-s3';
import type { S3Settings } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { checkedFileName, FILE_MISSING_MESSAGE, storeSegment, type ImageStore } from './image-storage.ts';

// Product images as objects <S3_PREFIX>product-images/<store_id>/<image id>.<webp|jpg> in an S3-compatible
// bucket (AWS, MinIO, Cloudflare R2, Backblaze B2): keys are built from numbers only, and every listing or
// deletion of a store is bounded by its own prefix "…/<store_id>/" (the slash keeps store 1 out of store 12).

export const STORAGE_REFUSED_MESSAGE = 'The image storage refused the request, so nothing was saved. Please try again later; if it goes on, check the S3_* settings.';
/** DeleteObjects takes at most 1,000 keys per request (S3 API reference, DeleteObjects). */
export const DELETE_BATCH_SIZE = 1000;

export class S3ImageStore implements ImageStore {
  private readonly client: S3Client;
  private readonly settings: S3Settings;

  constructor(settings: S3Settings) {
    this.settings = settings;
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      // Checksums only where S3 requires them (DeleteObjects): not every S3-compatible service knows the newer ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 2,
      // Without them a bucket that stops answering would hold a generation or a download open for ever.
      requestHandler: { connectionTimeout: 5000, requestTimeout: 60_000 },
    });
  }

  /** "<prefix>product-images/<store_id>/" */
  storePrefix(storeId: number): string {
    return `${this.settings.prefix}product-images/${storeSegment(storeId)}/`;
  }

  objectKey(storeId: number, fileName: string): string {
    return this.storePrefix(storeId) + checkedFileName(fileName);
  }

  async put(storeId: number, fileName: string, bytes: Buffer): Promise<void> {
    const ContentType = fileName.endsWith('.webp') ? 'image/webp' : 'image/jpeg';
    await this.attempt(() => this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(storeId, fileName), Body: bytes, ContentType })));
  }

  async get(storeId: number, fileName: string): Promise<Readable> {
    const answer = await this.attempt(() => this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(storeId, fileName) })));
    return answer.Body as Readable;
  }

  async delete(storeId: number, fileName: string): Promise<void> {
    await this.attempt(() => this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(storeId, fileName) })));
  }

  async deleteStore(storeId: number): Promise<void> {
    const keys = (await this.list(this.storePrefix(storeId))).map((object) => object.key);
    for (let start = 0; start < keys.length; start += DELETE_BATCH_SIZE) {
      const batch = keys.slice(start, start + DELETE_BATCH_SIZE);
      const answer = await this.attempt(() =>
        this.client.send(new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })),
      );
      if (answer.Errors?.length) throw new AppError('BAD_GATEWAY', `${STORAGE_REFUSED_MESSAGE} (S3: ${answer.Errors[0]!.Code ?? 'DeleteObjects error'} for ${answer.Errors.length} keys)`);
    }
  }

  async usageBytes(storeId: number): Promise<number> {
    return (await this.list(this.storePrefix(storeId))).reduce((sum, object) => sum + object.size, 0);
  }

  /** Every object under the prefix, page after page (ListObjectsV2 answers at most 1,000 at a time). */
  private async list(prefix: string): Promise<{ key: string; size: number }[]> {
    const objects: { key: string; size: number }[] = [];
    let token: string | undefined;
    do {
      const page = await this.attempt(() => this.client.send(new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: prefix, ContinuationToken: token })));
      for (const object of page.Contents ?? []) if (object.Key?.startsWith(prefix)) objects.push({ key: object.Key, size: object.Size ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return objects;
  }

  /** Runs one S3 request; S3's error documents become clear errors (the code says what to fix: a key, the bucket, ...). */
  private async attempt<Output>(request: () => Promise<Output>): Promise<Output> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof S3ServiceException && error.name !== 'NoSuchBucket' && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)) throw new AppError('NOT_FOUND', FILE_MISSING_MESSAGE);
      throw new AppError('BAD_GATEWAY', storageRefusedMessage(error));
    }
  }
}

/** "… (S3: SignatureDoesNotMatch, HTTP 403)": the operator reads what to fix in S3_* without a log. */
export function storageRefusedMessage(error: unknown): string {
  const reason = error instanceof S3ServiceException ? `${error.name}, HTTP ${error.$metadata.httpStatusCode ?? '?'}` : (error as Error).message;
  return `${STORAGE_REFUSED_MESSAGE} (S3: ${reason})`;
}
