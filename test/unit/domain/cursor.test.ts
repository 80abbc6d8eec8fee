import { describe, expect, it } from 'vitest';
import { cursorCodec } from '../../../shared/domain/cursor.ts';
import { BadRequestError } from '../../../shared/errors.ts';

const codec = cursorCodec('secret-a');
const binding = { orgId: 'acme', filter: '["URL",null,null]' };
const position = 'any text a store issues: ASSET#1 2026-01-01T00:00:00Z#0000000000000001';

describe('next_page cursors', () => {
  it('give back the position they were sealed with, for the same organization and filters', () => {
    expect(codec.open(binding, codec.seal(binding, position))).toEqual(position);
  });

  it('do not reveal the position in the token', () => {
    expect(codec.seal(binding, position)).not.toContain('ASSET');
  });

  it.each([
    ['another organization', { ...binding, orgId: 'globex' }],
    ['other filters', { ...binding, filter: '["TWITTER",null,null]' }],
  ])('are rejected with 400 when presented by %s', (_, other) => {
    const token = codec.seal(binding, position);

    expect(() => codec.open(other, token)).toThrow(BadRequestError);
  });

  it('are rejected when one character is altered, truncated, or sealed with another secret', () => {
    const token = codec.seal(binding, position);
    const flipped = `${token.slice(0, 30)}${token[30] === 'x' ? 'y' : 'x'}${token.slice(31)}`;

    expect(() => codec.open(binding, flipped)).toThrow('Invalid next_page cursor');
    expect(() => codec.open(binding, token.slice(0, 20))).toThrow('Invalid next_page cursor');
    expect(() => cursorCodec('secret-b').open(binding, token)).toThrow('Invalid next_page cursor');
    expect(() => codec.open(binding, 'not base64url!')).toThrow('Invalid next_page cursor');
  });
});
