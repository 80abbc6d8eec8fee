import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { isUnavailable } from '../../../shared/db/client.ts';

const socketError = (code: string) => Object.assign(new Error(`connect ${code}`), { code });
const answered = (name: string, httpStatusCode: number) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode } });

describe('isUnavailable: what the failure policy answers with 503', () => {
  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])(
    'counts the network error %s as unavailable',
    (code) => {
      expect(isUnavailable(socketError(code))).toBe(true);
    },
  );

  it('counts throttling, timeouts and 5xx answers as unavailable', () => {
    expect(isUnavailable(answered('ThrottlingException', 400))).toBe(true);
    expect(isUnavailable(answered('TimeoutError', 0))).toBe(true);
    expect(isUnavailable(answered('InternalServerError', 500))).toBe(true);
  });

  it('leaves client errors and failed conditions to the repositories', () => {
    expect(isUnavailable(answered('ValidationException', 400))).toBe(false);
    expect(isUnavailable(answered('ConditionalCheckFailedException', 400))).toBe(false);
    expect(isUnavailable(socketError('EACCES'))).toBe(false);
    const cancelled = new TransactionCanceledException({
      message: 'cancelled',
      $metadata: {},
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'ThrottlingError' }],
    });
    expect(isUnavailable(cancelled)).toBe(false);
  });
});
