import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rotateKeyCommand } from '../../../infra/admin/blocklist-commands.ts';
import { fileSigningKeys } from '../../../shared/db/blocklist-signing-keys.ts';
import { publishedKeys, SIGNING_KEYS, signingKeyOf } from '../../../shared/domain/blocklist/signing-keys.ts';

const NOW = Date.parse('2030-01-01T00:00:00Z');

describe('npm run admin -- blocklist rotate-key', () => {
  it('publishes the next key at once, signs with it from 15 minutes on, and keeps the previous one published', async () => {
    const store = fileSigningKeys(join(mkdtempSync(join(tmpdir(), 'rotate-key-')), 'keys.json'), () => NOW);
    const [first] = (await store.load()).keys;

    const said = await rotateKeyCommand(store, () => NOW);
    const set = await store.load();
    const [, next] = set.keys;

    expect(said).toBe(
      `Published signing key ${next?.kid}; it signs from ${new Date(NOW + SIGNING_KEYS.leadMs).toISOString()}. 2 key(s) published.`,
    );
    expect(publishedKeys(set, NOW).keys.map((key) => key.kid)).toEqual([first?.kid, next?.kid]);
    expect(signingKeyOf(set, NOW + SIGNING_KEYS.leadMs - 1)?.kid).toBe(first?.kid);
    expect(signingKeyOf(set, NOW + SIGNING_KEYS.leadMs)?.kid).toBe(next?.kid);
    expect(publishedKeys(set, NOW + SIGNING_KEYS.leadMs + SIGNING_KEYS.keepMs - 1).keys).toHaveLength(2);
  });

  it('makes the first key of an empty set (a fresh stack) sign at once', async () => {
    const saved: unknown[] = [];
    const store = { load: async () => ({ keys: [] }), save: async (set: unknown) => void saved.push(set) };

    const said = await rotateKeyCommand(store, () => NOW);

    expect(said).toMatch(new RegExp(`it signs from ${new Date(NOW).toISOString()}\\. 1 key\\(s\\) published\\.$`));
    expect(saved).toHaveLength(1);
  });
});
