import type { ListReader } from '../../domain/check/index.ts';
import { type Egress, egressRequest } from '../../egress/index.ts';

type Options = Egress & { timeoutMs?: number; maxBytes?: number };

/**
 * The list source port over HTTPS, under the egress policy: the body of a list URL; a status
 * other than 2xx (a redirect among them: none is followed), a body over `maxBytes` or an answer
 * slower than `timeoutMs` is an error.
 */
export const httpListReader =
  ({ timeoutMs = 30_000, maxBytes = 64 * 1024 * 1024, ...egress }: Options): ListReader =>
  async (url) => {
    const answer = await egressRequest(url, {}, { ...egress, timeoutMs, maxBytes });
    if (answer.status < 200 || answer.status > 299) throw new Error(`${url} answered ${answer.status}`);
    if (answer.truncated) throw new Error(`${url} is larger than ${maxBytes} bytes`);
    return answer.body.toString('utf8');
  };
