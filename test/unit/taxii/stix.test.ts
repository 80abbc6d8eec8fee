import { describe, expect, it } from 'vitest';
import { contentOfPattern, indicatorIdOf, patternOf } from '../../../shared/domain/taxii/index.ts';
import { stixProblems } from '../../fixtures/stix-check.ts';

const indicator = (pattern: string) => ({
  type: 'indicator',
  spec_version: '2.1',
  id: 'indicator--8e2e2d2b-17d4-4cbf-938f-98ee46b3cd3f',
  created: '2026-05-01T00:00:00.000Z',
  modified: '2026-05-01T00:00:00.000Z',
  pattern,
  pattern_type: 'stix',
  valid_from: '2026-05-01T00:00:00.000Z',
});

describe('STIX patterns of entries', () => {
  it("escapes ' and \\ in a URL, so the pattern parses and reads back to the same content", () => {
    const pattern = patternOf("phish.example/o'brien\\claim", 'URL') as string;

    expect(pattern).toBe("[url:value = 'https://phish.example/o\\'brien\\\\claim']");
    expect(stixProblems(indicator(pattern))).toEqual([]);
    expect(contentOfPattern(pattern)).toBe("https://phish.example/o'brien\\claim");
  });

  it.each([
    ['acme-airdrop.xyz', 'URL', "[domain-name:value = 'acme-airdrop.xyz']"],
    ['mailto:bob@evil-mail.xyz', 'EMAIL', "[email-addr:value = 'bob@evil-mail.xyz']"],
    [
      '0x1234567890abcdef1234567890abcdef12345678',
      'ADDRESS',
      "[cryptocurrency-wallet:value = '0x1234567890abcdef1234567890abcdef12345678']",
    ],
    ['x.com/acmescam', 'TWITTER', "[url:value = 'https://x.com/acmescam']"],
  ] as const)('writes %s (%s) as %s', (checkKey, type, pattern) => {
    expect(patternOf(checkKey, type)).toBe(pattern);
    expect(stixProblems(indicator(pattern))).toEqual([]);
  });

  it('reads no content from a pattern it does not support', () => {
    expect(contentOfPattern("[ipv4-addr:value = '10.0.0.1']")).toBeUndefined();
    expect(contentOfPattern("[domain-name:value = 'a.xyz'] AND [domain-name:value = 'b.xyz']")).toBeUndefined();
  });

  it('gives each generation of an entry its own stable id', () => {
    const first = indicatorIdOf('acme', 'blocked', 'acme-airdrop.xyz', 'threat:t-1:2026-03-01T10:00:00.000Z');

    expect(indicatorIdOf('acme', 'blocked', 'acme-airdrop.xyz', 'threat:t-1:2026-03-01T10:00:00.000Z')).toBe(first);
    expect(indicatorIdOf('acme', 'blocked', 'acme-airdrop.xyz', 'threat:t-2:2026-03-05T10:00:00.000Z')).not.toBe(first);
    expect(indicatorIdOf('globex', 'blocked', 'acme-airdrop.xyz', 'threat:t-1:2026-03-01T10:00:00.000Z')).not.toBe(
      first,
    );
    expect(first).toMatch(/^indicator--[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
