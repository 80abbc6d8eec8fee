import { describe, expect, it } from 'vitest';
import { cursorCodec, parseCursorKeySet } from '../../../shared/domain/core/cursor.ts';
import { BadRequestError } from '../../../shared/errors.ts';

const codec = cursorCodec(() => 'secret-a');
const binding = { orgId: 'acme', filter: '["URL",null,null]' };
/** A store's position is opaque text to the codec; this one is shaped like the asset store's. */
const position = JSON.stringify({ PK: 'ASSET#1', SK: 'ASSET', liveSK: '2026-01-01T00:00:00Z#0000000000000001' });
/** What a client must not learn from a token: every value of the position and of what it is bound to. */
const secrets = ['ASSET#1', '2026-01-01', '0000000000000001', 'liveSK', 'acme', '["URL"'];

/** A token is `<key version>.<sealed>`; the sealed part is base64url. */
const sealedPart = (token: string) => token.slice(token.indexOf('.') + 1);
const withSealed = (token: string, sealed: string) => `${token.slice(0, token.indexOf('.') + 1)}${sealed}`;

const flipBit = (token: string, byte: number): string => {
  const raw = Buffer.from(sealedPart(token), 'base64url');
  raw.writeUInt8(raw.readUInt8(byte) ^ 0x01, byte);
  return withSealed(token, raw.toString('base64url'));
};

/** A key set whose stored text can be replaced, as a rotation does. */
const rotatingSecret = (initial: object) => {
  let text = JSON.stringify(initial);
  return {
    source: () => text,
    store: (next: object) => {
      text = JSON.stringify(next);
    },
  };
};

describe('next_page cursors', () => {
  it('give back the position they were sealed with, for the same organization and filters', async () => {
    expect(await codec.open(binding, await codec.seal(binding, position))).toEqual(position);
  });

  it('reveal nothing of the position or the binding, neither in the text nor in the decoded bytes, and name the key version', async () => {
    const token = await codec.seal(binding, position);

    for (const reading of [token, Buffer.from(sealedPart(token), 'base64url').toString('latin1')]) {
      for (const secret of secrets) expect(reading).not.toContain(secret);
    }
    expect(token.startsWith('0.')).toBe(true);
  });

  it('differ almost everywhere when the same position is sealed twice', async () => {
    const a = sealedPart(await codec.seal(binding, position));
    const b = sealedPart(await codec.seal(binding, position));

    const samePlace = [...a].filter((char, i) => b[i] === char).length;
    expect(a).not.toBe(b);
    expect(samePlace).toBeLessThan(a.length / 4);
  });

  it.each([
    ['another organization', { ...binding, orgId: 'globex' }],
    ['other filters', { ...binding, filter: '["TWITTER",null,null]' }],
  ])('are rejected with 400 when presented by %s', async (_, other) => {
    const token = await codec.seal(binding, position);

    await expect(codec.open(other, token)).rejects.toThrow(BadRequestError);
  });

  it('are rejected when any one bit of the sealed part is flipped', async () => {
    const token = await codec.seal(binding, position);
    const length = Buffer.from(sealedPart(token), 'base64url').length;

    const outcomes = await Promise.all(
      Array.from({ length }, (_, byte) =>
        codec.open(binding, flipBit(token, byte)).then(
          () => `byte ${byte} accepted`,
          (error: unknown) => error,
        ),
      ),
    );

    expect(outcomes).toEqual(Array(length).fill(new BadRequestError('Invalid next_page cursor')));
  });

  it('are rejected when sealed with another secret, truncated, not base64url, or carry no version', async () => {
    const token = await codec.seal(binding, position);

    await expect(cursorCodec(() => 'secret-b').open(binding, token)).rejects.toThrow('Invalid next_page cursor');
    await expect(codec.open(binding, token.slice(0, 20))).rejects.toThrow('Invalid next_page cursor');
    await expect(codec.open(binding, token.slice(0, -1))).rejects.toThrow('Invalid next_page cursor');
    await expect(codec.open(binding, token.slice(2))).rejects.toThrow('Invalid next_page cursor');
    await expect(codec.open(binding, '0.not base64url!')).rejects.toThrow('Invalid next_page cursor');
  });
});

describe('cursor key rotation', () => {
  it('keeps a cursor sealed before a rotation valid after it, and seals new cursors with the new version', async () => {
    const secret = rotatingSecret({ current: '1', 1: 'key-one' });
    const cursors = cursorCodec(secret.source);
    const before = await cursors.seal(binding, position);

    secret.store({ current: '2', 1: 'key-one', 2: 'key-two' });
    const after = await cursors.seal(binding, position);

    expect(await cursors.open(binding, before)).toEqual(position);
    expect(before.startsWith('1.')).toBe(true);
    expect(after.startsWith('2.')).toBe(true);
    expect(await cursors.open(binding, after)).toEqual(position);
  });

  it('rejects with 400 a cursor sealed with a key version that was removed', async () => {
    const secret = rotatingSecret({ current: '1', 1: 'key-one' });
    const cursors = cursorCodec(secret.source);
    const old = await cursors.seal(binding, position);

    secret.store({ current: '2', 2: 'key-two' });

    await expect(cursors.open(binding, old)).rejects.toThrow(new BadRequestError('Invalid next_page cursor'));
  });

  it('asks the source for a fresh key set when a cursor names a version it has not seen, as after a rotation elsewhere', async () => {
    const issuer = cursorCodec(() => JSON.stringify({ current: '2', 1: 'key-one', 2: 'key-two' }));
    const token = await issuer.seal(binding, position);
    let cached = true;
    const stale = cursorCodec(({ refresh }) => {
      if (refresh) cached = false;
      return cached
        ? JSON.stringify({ current: '1', 1: 'key-one' })
        : JSON.stringify({ current: '2', 1: 'key-one', 2: 'key-two' });
    });

    expect(await stale.open(binding, token)).toEqual(position);
    expect(cached).toBe(false);
  });

  it.each([
    ['a current version without a key', '{"current":"3","1":"key"}'],
    ['an empty key', '{"current":"1","1":""}'],
    ['a version with a dot', '{"current":"1","1":"key","a.b":"key"}'],
  ])('refuses a key set with %s', (_, text) => {
    expect(() => parseCursorKeySet(text)).toThrow('The cursor key set must be');
  });
});
