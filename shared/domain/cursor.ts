import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { BadRequestError } from '../errors.ts';

/**
 * `next_page` tokens: AES-256-GCM over a store's position (opaque text) and what it is bound to
 * (organization and filters). A token that was altered, issued to another organization, or is
 * replayed with other filters is rejected with 400.
 */
export type CursorBinding = { orgId: string; filter: string };

export const INVALID_CURSOR = 'Invalid next_page cursor';

const keyOf = (secret: string): Buffer => createHash('sha256').update(`cursor:${secret}`).digest();

export const cursorCodec = (secret: string) => {
  const key = keyOf(secret);
  return {
    seal(binding: CursorBinding, position: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(JSON.stringify(binding)));
      const body = Buffer.concat([cipher.update(position, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    open(binding: CursorBinding, token: string): string {
      const raw = Buffer.from(token, 'base64url');
      if (raw.length < 29 || raw.toString('base64url') !== token) throw new BadRequestError(INVALID_CURSOR);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        decipher.setAAD(Buffer.from(JSON.stringify(binding)));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      } catch (cause) {
        throw new BadRequestError(INVALID_CURSOR, { cause });
      }
    },
  };
};
export type CursorCodec = ReturnType<typeof cursorCodec>;
