import type { ListReader } from '../../domain/check/sync.ts';

type Options = { fetch?: typeof globalThis.fetch; timeoutMs?: number; maxBytes?: number };

/**
 * The list source port over HTTP: the body of a list URL, following redirects; a status other
 * than 2xx, a body over `maxBytes` or an answer slower than `timeoutMs` is an error.
 */
export const httpListReader =
  ({ fetch = globalThis.fetch, timeoutMs = 30_000, maxBytes = 64 * 1024 * 1024 }: Options = {}): ListReader =>
  async (url) => {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > maxBytes) throw new Error(`${url} is larger than ${maxBytes} bytes`);
    const body = await response.text();
    if (body.length > maxBytes) throw new Error(`${url} is larger than ${maxBytes} bytes`);
    return body;
  };
