import { describe, expect, it } from 'vitest';
import { matchesPattern } from '../../../infra/local/write-guard.ts';

describe("the write guard's reading of IAM's StringLike", () => {
  it.each([
    ['ORG#*', 'ORG#acme', true],
    ['ORG#*', 'ORG#', true],
    ['ORG#*', 'ORGANIZATION#acme', false],
    ['ORG#*', 'org#acme', false],
    ['ASSET#*', 'ASSETREF#1', false],
    ['GROUP_REMOVAL', 'GROUP_REMOVAL', true],
    ['GROUP_REMOVAL', 'GROUP_REMOVAL#x', false],
    ['KEY#?', 'KEY#a', true],
    ['KEY#?', 'KEY#ab', false],
    ['A.B*', 'AxB', false],
    ['METRICS#*', 'METRICS#acme\n#BRAND#x', true],
  ])('%s matches %j: %s', (pattern, value, matches) => {
    expect(matchesPattern(pattern, value)).toBe(matches);
  });
});
