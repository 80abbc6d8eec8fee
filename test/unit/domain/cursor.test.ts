import { describe, expect, it } from 'vitest';
import { cursorCodec, parseCursorKeySet } from '../../../shared/domain/cursor.ts';
import { BadRequestError } from '../../../shared/errors.ts';

const codec = cursorCodec(() => 'secret-a');
const binding = { orgId: 'acme', filter: '["URL",null,null]' };
const position = { PK: 'ASSET#1', SK: 'ASSET', liveSK: '2026-01-01T00:00:00Z#0000000000000001' };

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

  it('do not reveal the position in the token, which names the key version', async () => {
    const token = await codec.seal(binding, position);

    expect(token).not.toContain('ASSET');
    expect(token.startsWith('0.')).toBe(true);
  });

  it.each([
    ['another organization', { ...binding, orgId: 'globex' }],
    ['other filters', { ...binding, filter: '["TWITTER",null,null]' }],
  ])('are rejected with 400 when presented by %s', async (_, other) => {
    const token = await codec.seal(binding, position);

    await expect(codec.open(other, token)).rejects.toThrow(BadRequestError);
  });

  it('are rejected when one character is altered, truncated, sealed with another secret, or carry no version', async () => {
    const token = await codec.seal(binding, position);
    const flipped = `${token.slice(0, 30)}${token[30] === 'x' ? 'y' : 'x'}${token.slice(31)}`;

    await expect(codec.open(binding, flipped)).rejects.toThrow('Invalid next_page cursor');
    await expect(codec.open(binding, token.slice(0, 20))).rejects.toThrow('Invalid next_page cursor');
    await expect(cursorCodec(() => 'secret-b').open(binding, token)).rejects.toThrow('Invalid next_page cursor');
    await expect(codec.open(binding, token.slice(2))).rejects.toThrow('Invalid next_page cursor');
    await expect(codec.open(binding, 'not base64url!')).rejects.toThrow('Invalid next_page cursor');
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
