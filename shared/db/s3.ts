import type * as S3 from '@aws-sdk/client-s3';
import { underFailurePolicy } from './client.ts';

type S3Sdk = typeof S3 & { s3: S3.S3Client };
let sdk: Promise<S3Sdk> | undefined;

/**
 * The S3 SDK and the container's one client, under the same failure policy as the table's (see
 * client.ts), loaded on first use: only a cold start that reads a snapshot pays for them, and not
 * before the first request.
 */
export const s3Sdk = (): Promise<S3Sdk> => {
  sdk ??= import('@aws-sdk/client-s3').then((module) => {
    const s3 = underFailurePolicy('snapshot store', (transport) => new module.S3Client(transport));
    return { ...module, s3 };
  });
  return sdk;
};
