import { describe, expect, it } from 'vitest';
import {
  entryExpressions,
  expressionsOf,
  fullHash,
  prefixHex,
  prefixOf,
} from '../../../shared/domain/blocklist/expressions.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

describe('blocklist expressions', () => {
  it.each([
    [
      'https://a.b.example.com/1/2.html?q=1#x',
      ['a.b.example.com/1/2.html', 'a.b.example.com/1/', 'a.b.example.com/', 'b.example.com/', 'example.com/'],
    ],
    ['HTTP://WWW.Example.com./', ['example.com/']],
    ['https://example.com/a/b/c/d', ['example.com/a/b/c/d', 'example.com/a/b/', 'example.com/a/', 'example.com/']],
    [
      'https://1.2.3.4.5.6.example.co.uk/x',
      [
        '1.2.3.4.5.6.example.co.uk/x',
        '1.2.3.4.5.6.example.co.uk/',
        '4.5.6.example.co.uk/',
        '5.6.example.co.uk/',
        '6.example.co.uk/',
        'example.co.uk/',
      ],
    ],
    ['http://3405803777/login', ['203.0.113.1/login', '203.0.113.1/']],
    ['http://[::ffff:203.0.113.1]/', ['203.0.113.1/']],
    ['https://bücher.example/', ['xn--bcher-kva.example/']],
    ['https://evil.github.io/claim', ['evil.github.io/claim', 'evil.github.io/']],
    ['https://github.io/', []],
    ['https://twitter.com/Acme/status/1', ['x.com/acme/status/1', 'x.com/acme/']],
    ['0xAbC0000000000000000000000000000000000001', ['0xabc0000000000000000000000000000000000001']],
    ['alice@sub.example.com', ['mailto:alice@sub.example.com', 'sub.example.com/', 'example.com/']],
    ['chrome://settings', []],
  ])('gives %s the expressions %j', (content, expected) => {
    expect(expressionsOf(suffixes, content)).toEqual(expected);
  });

  it.each([
    ['example.com', ['example.com/']],
    ['example.com/claim', ['example.com/claim', 'example.com/claim/']],
    ['x.com/acme', ['x.com/acme', 'x.com/acme/']],
    ['0xabc0000000000000000000000000000000000001', ['0xabc0000000000000000000000000000000000001']],
    ['[2001:db8::1]', ['[2001:db8::1]/']],
  ])('blocks the entry %s as %j', (key, expected) => {
    expect(entryExpressions(key)).toEqual(expected);
  });

  it('hashes an expression with SHA-256 of its UTF-8 bytes and writes its first 4 bytes as 8 lower-case hex digits', () => {
    const hash = fullHash('abc');

    expect(hash).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(prefixHex(prefixOf(hash))).toBe('ba7816bf');
    expect(prefixHex(0xab)).toBe('000000ab');
  });
});
