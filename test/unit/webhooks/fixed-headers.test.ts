import { describe, expect, it } from 'vitest';
import { openHeaders } from '../../../shared/webhooks/dispatch.ts';
import { sealHeaders } from '../../../shared/webhooks/manage.ts';

/** Seals by reversing the text: enough to see what is stored and what is opened. */
const sealer = {
  seal: async (text: string) => `sealed:${[...text].reverse().join('')}`,
  open: async (sealed: string) => [...sealed.slice('sealed:'.length)].reverse().join(''),
};

describe('webhook fixed headers', () => {
  it('are stored as one sealed value that opens to the headers given', async () => {
    const headers = { 'X-Webhook-Access-Key': 'access-1', 'X-goog-api-key': 'goog-1' };

    const stored = await sealHeaders(sealer, headers);

    expect(JSON.stringify(stored)).not.toContain('access-1');
    expect(await openHeaders(sealer, stored)).toEqual(headers);
  });

  it('store nothing when there are none, and open to none', async () => {
    expect(await sealHeaders(sealer, {})).toBeUndefined();
    expect(await sealHeaders(sealer, undefined)).toBeUndefined();
    expect(await openHeaders(sealer, undefined)).toEqual({});
  });

  it('open as stored in clear by webhooks created before they were sealed', async () => {
    expect(await openHeaders(sealer, { clear: { 'X-Webhook-Access-Key': 'old' } })).toEqual({
      'X-Webhook-Access-Key': 'old',
    });
  });

  it('fail without quoting the opened text when it is not JSON', async () => {
    const failure = await openHeaders(sealer, { sealed: 'sealed:terces-eht-si-siht' }).catch((error: Error) => error);

    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).not.toContain('this-is-the-secret');
  });
});
