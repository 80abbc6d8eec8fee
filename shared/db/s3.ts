import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { lazyClient, underFailurePolicy, withinCallBudget } from './client.ts';

/** The two S3 operations the snapshot stores use. */
export type ObjectStore = {
  /** The object's bytes, or undefined when the bucket holds no such key (NoSuchKey, or a 404 that names no error). */
  getObject(bucket: string, key: string): Promise<Uint8Array | undefined>;
  /** `cacheControl` is kept with the object and answered with it (by a CDN in front of the bucket too). */
  putObject(bucket: string, key: string, body: Uint8Array, contentType: string, cacheControl?: string): Promise<void>;
  /** Puts the object only if the bucket holds no such key (`If-None-Match: *`): false when it does. */
  putNewObject(bucket: string, key: string, body: Uint8Array, contentType: string): Promise<boolean>;
};

const DEPENDENCY = 'snapshot store';

/** The status of an S3 error answer, if it is one. */
const statusOf = (error: unknown): number | undefined =>
  error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;

/**
 * S3 objects through the S3 client, under the failure policy of client.ts and built by the first
 * call. `endpoint` (a loopback server in tests) is addressed path-style (`<endpoint>/<bucket>/<key>`).
 */
export const s3Objects = (endpoint?: string): ObjectStore => {
  const s3 = lazyClient(() =>
    underFailurePolicy(
      DEPENDENCY,
      (transport) =>
        new S3Client({ ...transport, ...(endpoint === undefined ? {} : { endpoint, forcePathStyle: true }) }),
    ),
  );
  return {
    // The body streams in after the command has answered: its read is within the call's budget too.
    getObject: (bucket, key) =>
      withinCallBudget(DEPENDENCY, async () => {
        try {
          const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
          return await Body?.transformToByteArray();
        } catch (error) {
          // A 404 without an error code in its body (as a CDN or proxy may send) is named NotFound.
          if (error instanceof NoSuchKey || (statusOf(error) === 404 && (error as Error).name === 'NotFound')) {
            return undefined;
          }
          throw error;
        }
      }),
    async putObject(bucket, key, body, contentType, cacheControl) {
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentType: contentType,
          CacheControl: cacheControl,
        }),
      );
    },
    async putNewObject(bucket, key, body, contentType) {
      try {
        await s3.send(
          new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType, IfNoneMatch: '*' }),
        );
        return true;
      } catch (error) {
        // 412: the key exists; 409: a concurrent conditional write of the same key won.
        const status = statusOf(error);
        if (status === 412 || status === 409) return false;
        throw error;
      }
    },
  };
};
