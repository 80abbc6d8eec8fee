import { describe, expect, it } from 'vitest';
import { cursorCodec } from '../../../shared/domain/cursor.ts';
import { BadRequestError } from '../../../shared/errors.ts';

const codec = cursorCodec('secret-a');
const binding = { orgId: 'acme', filter: '["URL",null,null]' };
const position = { PK: 'ASSET#1', SK: 'ASSET', liveSK: '2026-01-01T00:00:00Z#0000000000000001' };
/** What a client must not learn from a token: every value of the position and of what it is bound to. */
const secrets = ['ASSET#1', '2026-01-01', '0000000000000001', 'liveSK', 'acme', '["URL"'];

/** The token's text and the bytes under its base64url, as latin1 so any byte sequence survives. */
const readings = (token: string) => [token, Buffer.from(token, 'base64url').toString('latin1')];

const flipBit = (token: string, byte: number): string => {
  const raw = Buffer.from(token, 'base64url');
  raw.writeUInt8((raw.readUInt8(byte) ^ 0x01) & 0xff, byte);
  return raw.toString('base64url');
};

describe('next_page cursors', () => {
  it('give back the position they were sealed with, for the same organization and filters', () => {
    expect(codec.open(binding, codec.seal(binding, position))).toEqual(position);
  });

  it('reveal nothing of the position or the binding, neither in the text nor in the decoded bytes', () => {
    const token = codec.seal(binding, position);

    for (const reading of readings(token)) {
      for (const secret of secrets) expect(reading).not.toContain(secret);
    }
  });

  it('differ almost everywhere when the same position is sealed twice', () => {
    const [a, b] = [codec.seal(binding, position), codec.seal(binding, position)] as [string, string];

    const samePlace = [...a].filter((char, i) => b[i] === char).length;
    expect(a).not.toBe(b);
    expect(samePlace).toBeLessThan(a.length / 4);
  });

  it.each([
    ['another organization', { ...binding, orgId: 'globex' }],
    ['other filters', { ...binding, filter: '["TWITTER",null,null]' }],
  ])('are rejected with 400 when presented by %s', (_, other) => {
    const token = codec.seal(binding, position);

    expect(() => codec.open(other, token)).toThrow(BadRequestError);
  });

  it('are rejected when any one bit of the token is flipped', () => {
    const token = codec.seal(binding, position);
    const length = Buffer.from(token, 'base64url').length;

    const accepted = Array.from({ length }, (_, byte) => byte).filter((byte) => {
      try {
        codec.open(binding, flipBit(token, byte));
        return true;
      } catch (error) {
        expect(error).toEqual(new BadRequestError('Invalid next_page cursor'));
        return false;
      }
    });

    expect(accepted).toEqual([]);
  });

  it('are rejected when sealed with another secret, truncated, or not base64url', () => {
    const token = codec.seal(binding, position);

    expect(() => cursorCodec('secret-b').open(binding, token)).toThrow('Invalid next_page cursor');
    expect(() => codec.open(binding, token.slice(0, 20))).toThrow('Invalid next_page cursor');
    expect(() => codec.open(binding, token.slice(0, -1))).toThrow('Invalid next_page cursor');
    expect(() => codec.open(binding, 'not base64url!')).toThrow('Invalid next_page cursor');
  });
});
