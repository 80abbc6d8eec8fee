import { extendedEncodeURIComponent } from '@smithy/core/protocols';
import { AwsServiceError, type AwsTarget, awsService } from './aws-request.ts';

/** The two S3 operations the snapshot stores use. */
export type ObjectStore = {
  /** The object's bytes, or undefined when the bucket holds no such key (NoSuchKey, or a 404 that names no error). */
  getObject(bucket: string, key: string): Promise<Uint8Array | undefined>;
  /** `cacheControl` is kept with the object and answered with it (by a CDN in front of the bucket too). */
  putObject(bucket: string, key: string, body: Uint8Array, contentType: string, cacheControl?: string): Promise<void>;
  /** Puts the object only if the bucket holds no such key (`If-None-Match: *`): false when it does. */
  putNewObject(bucket: string, key: string, body: Uint8Array, contentType: string): Promise<boolean>;
};

/** Each segment of the key encoded once, as S3 signs paths (without a second encoding). */
const objectPath = (key: string): string => `/${key.split('/').map(extendedEncodeURIComponent).join('/')}`;

/**
 * S3 objects over signed HTTPS requests (see aws-request.ts), virtual-hosted style in AWS
 * (`<bucket>.s3.<region>.amazonaws.com/<key>`), path-style at an endpoint override.
 */
export const s3Objects = (target?: AwsTarget): ObjectStore => {
  const send = awsService(
    {
      dependency: 'snapshot store',
      signingName: 's3',
      uriEscapePath: false,
      errorCode: ({ body }) => /<Code>([^<]+)<\/Code>/.exec(Buffer.from(body).toString('utf8'))?.[1],
    },
    target,
  );
  return {
    async getObject(bucket, key) {
      try {
        return (await send({ method: 'GET', virtualHost: bucket, path: objectPath(key) })).body;
      } catch (error) {
        if (error instanceof AwsServiceError && ['NoSuchKey', 'Http404'].includes(error.name)) return undefined;
        throw error;
      }
    },
    async putObject(bucket, key, body, contentType, cacheControl) {
      await send({
        method: 'PUT',
        virtualHost: bucket,
        path: objectPath(key),
        headers: {
          'content-type': contentType,
          ...(cacheControl === undefined ? {} : { 'cache-control': cacheControl }),
        },
        body,
      });
    },
    async putNewObject(bucket, key, body, contentType) {
      try {
        await send({
          method: 'PUT',
          virtualHost: bucket,
          path: objectPath(key),
          headers: { 'content-type': contentType, 'if-none-match': '*' },
          body,
        });
        return true;
      } catch (error) {
        // 412: the key exists; 409: a concurrent conditional write of the same key won.
        if (error instanceof AwsServiceError && [412, 409].includes(error.$metadata.httpStatusCode)) return false;
        throw error;
      }
    },
  };
};
