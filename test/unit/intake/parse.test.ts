import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/intake/parse.ts';
import { parseAssets } from '../../../shared/domain/intake/parse.ts';
import { apiEvent, call, errorBody } from '../../fixtures/api-event.ts';
import { fakeKeys, orgKey, userKey } from '../../fixtures/fakes.ts';
import CORPUS from './chat-corpus.json' with { type: 'json' };

const keys = fakeKeys({ 'acme-key': orgKey('acme', ['read']), 'user-key': userKey('u-1') });
const parse = (apiKey: string | null, body: unknown) =>
  call(createHandler({ suffixes, keys }), apiEvent({ method: 'POST', apiKey, body }));

describe('parseAssets', () => {
  it('finds exactly the expected assets, offsets included, in each of the chat corpus messages', () => {
    const mismatches = CORPUS.filter(
      (message) => JSON.stringify(parseAssets(suffixes, message.text)) !== JSON.stringify(message.assets),
    );

    expect(CORPUS.length).toBeGreaterThanOrEqual(200);
    expect(mismatches).toEqual([]);
  });

  it('strips trailing punctuation and a closing parenthesis the URL did not open', () => {
    const text = 'claim at https://acme-wallet-airdrop-6.xyz). quick!';

    expect(parseAssets(suffixes, text)).toEqual([
      { content: 'acme-wallet-airdrop-6.xyz', type: 'URL', start: 9, end: 42 },
    ]);
  });

  it('keeps a closing parenthesis that closes one of the path', () => {
    expect(parseAssets(suffixes, '(see https://en.wikipedia.org/wiki/Foo_(bar))')[0]?.content).toBe(
      'en.wikipedia.org/wiki/Foo_(bar)',
    );
  });

  it('undoes defanging and reports the span of the defanged text', () => {
    const text = 'IOC hxxps://evil-acme[.]com/login';

    expect(parseAssets(suffixes, text)).toEqual([{ content: 'evil-acme.com/login', type: 'URL', start: 4, end: 33 }]);
  });

  it('reads a markdown link once when its label repeats its target', () => {
    const text = '[https://app.acme.com](https://app.acme.com)';

    expect(parseAssets(suffixes, text)).toEqual([{ content: 'app.acme.com', type: 'URL', start: 1, end: 21 }]);
  });

  it('converts an internationalized host to punycode', () => {
    expect(parseAssets(suffixes, 'visit münchen.de/info»')).toEqual([
      { content: 'xn--mnchen-3ya.de/info', type: 'URL', start: 6, end: 21 },
    ]);
  });

  it('ignores file names, abbreviations and channel-wide mentions', () => {
    expect(parseAssets(suffixes, 'see index.html and config.json, e.g. ping @everyone or @here')).toEqual([]);
  });

  it('reads an e-mail address as one asset, not as a domain and a handle', () => {
    expect(parseAssets(suffixes, 'write to support@acme.com')).toEqual([
      { content: 'mailto:support@acme.com', type: 'EMAIL', start: 9, end: 25 },
    ]);
  });
});

describe('POST /asset/parse', () => {
  it('answers 200 with the assets of the text for any key', async () => {
    const response = await parse('user-key', { text: 'DM @acme_support or join discord.gg/acme-mint.' });

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({
      assets: [
        { content: 'x.com/acme_support', type: 'TWITTER', start: 3, end: 16 },
        { content: 'discord.gg/acme-mint', type: 'DISCORD', start: 25, end: 45 },
      ],
    });
  });

  it('answers 400 for a text of more than 20,000 characters', async () => {
    const response = await parse('acme-key', { text: 'a'.repeat(20_001) });

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject({ message: 'text must be at most 20000 characters' });
  });

  it('answers 400 when text is not a string', async () => {
    const response = await parse('acme-key', { text: 42 });

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject({ issues: [{ message: 'text must be a string', path: 'body.text' }] });
  });

  it('answers 401 without a key', async () => {
    const response = await parse(null, { text: 'acme.com' });

    expect(response.statusCode).toBe(401);
    expect(response.body).toEqual(errorBody('UNAUTHORIZED', expect.any(String)));
  });

  it.each([
    ['https://user:pw@Scam-Site.COM:8443/Login/?utm=1#top', 'scam-site.com/Login', 'URL'],
    ['HTTPS://bücher.de/', 'xn--bcher-kva.de', 'URL'],
    ['  https://linktr.ee/Acme_Claim?x=1 ', 'https://linktr.ee/Acme_Claim?x=1', 'PAGE'],
    ['0xAbCdEf0123456789abcdef0123456789ABCDEF01', '0xabcdef0123456789abcdef0123456789abcdef01', 'ADDRESS'],
    ['@Acme_Support', 'x.com/acme_support', 'TWITTER'],
    ['Support@Acme.COM', 'support@acme.com', 'EMAIL'],
  ])('answers the published shape for content %s: normalized %s, type %s', async (sent, content, type) => {
    const response = await parse('acme-key', { content: sent });

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({ content, submittedContent: sent, type });
  });

  it('answers a null body when no asset type fits the content', async () => {
    const response = await parse('acme-key', { content: 'hello world' });

    expect(response.statusCode).toBe(200);
    expect(response.body).toBeNull();
  });

  it('answers 400 for an empty content, and for a body with both content and text', async () => {
    const empty = await parse('acme-key', { content: '' });
    const both = await parse('acme-key', { content: 'acme.com', text: 'acme.com' });

    expect(empty.statusCode).toBe(400);
    expect(empty.body).toMatchObject({ message: 'content is required' });
    expect(both.statusCode).toBe(400);
    expect(both.body).toMatchObject({ message: 'Send either content or text, not both' });
  });
});

import { suffixes } from '../../fixtures/suffixes.ts';
