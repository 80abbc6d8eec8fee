import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { BadRequestError } from '../../errors.ts';

/**
 * `next_page` tokens: `<key version>.<AES-256-GCM over a store's position>`. The position is
 * opaque text to this codec; the ciphertext is bound to what the position belongs to
 * (organization and filters). A token that was altered, issued to another organization,
 * replayed with other filters, or sealed with a key version no longer in the key set is
 * rejected with 400.
 */
export type CursorBinding = { orgId: string; filter: string };

/**
 * The cursor keys by version; new cursors are sealed with `current`. Rotating adds a version and
 * makes it current, so cursors sealed before stay valid until their version is removed.
 */
export type CursorKeySet = { current: string; keys: Readonly<Record<string, string>> };

/**
 * The key set's text, as stored: `{"current": "2", "1": "<key>", "2": "<key>"}`, or a single
 * secret, which is version `0`. `refresh` asks for the newest value (a token names a version the
 * last value did not have: a rotation elsewhere); a source may answer from its cache anyway.
 */
export type CursorKeySource = (options: { refresh: boolean }) => Promise<string> | string;

export const INVALID_CURSOR = 'Invalid next_page cursor';
const VERSION = /^[A-Za-z0-9_-]{1,32}$/;

export const parseCursorKeySet = (text: string): CursorKeySet => {
  if (!text.trimStart().startsWith('{')) return { current: '0', keys: { 0: text } };
  const { current, ...keys } = JSON.parse(text) as Record<string, unknown>;
  const valid =
    typeof current === 'string' &&
    typeof keys[current] === 'string' &&
    Object.entries(keys).every(([version, key]) => VERSION.test(version) && typeof key === 'string' && key.length > 0);
  if (!valid) throw new Error('The cursor key set must be {"current": "<version>", "<version>": "<key>", …}');
  return { current, keys: keys as Record<string, string> };
};

const keyOf = (secret: string): Buffer => createHash('sha256').update(`cursor:${secret}`).digest();

const seal = (key: Buffer, binding: CursorBinding, position: string): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(JSON.stringify(binding)));
  const body = Buffer.concat([cipher.update(position, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
};

const open = (key: Buffer, binding: CursorBinding, sealed: string): string => {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < 29 || raw.toString('base64url') !== sealed) throw new BadRequestError(INVALID_CURSOR);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(JSON.stringify(binding)));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch (cause) {
    throw new BadRequestError(INVALID_CURSOR, { cause });
  }
};

export const cursorCodec = (source: CursorKeySource) => {
  let parsed: { text: string; set: CursorKeySet } | undefined;
  const derived = new Map<string, Buffer>();
  const keySet = async (refresh: boolean): Promise<CursorKeySet> => {
    const text = await source({ refresh });
    if (parsed?.text !== text) parsed = { text, set: parseCursorKeySet(text) };
    return parsed.set;
  };
  const key = (secret: string): Buffer => {
    let value = derived.get(secret);
    if (!value) {
      value = keyOf(secret);
      derived.set(secret, value);
    }
    return value;
  };
  return {
    async seal(binding: CursorBinding, position: string): Promise<string> {
      const { current, keys } = await keySet(false);
      return `${current}.${seal(key(keys[current] as string), binding, position)}`;
    },
    async open(binding: CursorBinding, token: string): Promise<string> {
      const dot = token.indexOf('.');
      const version = token.slice(0, dot);
      if (dot < 1 || !VERSION.test(version)) throw new BadRequestError(INVALID_CURSOR);
      let { keys } = await keySet(false);
      if (!Object.hasOwn(keys, version)) ({ keys } = await keySet(true));
      const secret = Object.hasOwn(keys, version) ? keys[version] : undefined;
      if (secret === undefined) throw new BadRequestError(INVALID_CURSOR);
      return open(key(secret), binding, token.slice(dot + 1));
    },
  };
};
export type CursorCodec = ReturnType<typeof cursorCodec>;
