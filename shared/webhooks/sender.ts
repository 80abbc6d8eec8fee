import {
  type EgressAgents,
  type EgressPolicy,
  EgressRefusedError,
  egressRequest,
  type Resolver,
} from '../egress/index.ts';

/** What one attempt got: the receiver's status, or why there was none. */
export type SendResult = { status: number } | { error: string };

export type SendOptions = {
  policy: EgressPolicy;
  resolve: Resolver;
  timeoutMs: number;
  /** Connections kept open between deliveries; without them every send opens its own. */
  agents?: EgressAgents;
};

/** At most this much of a response is read (and thrown away): a receiver cannot make a delivery hold memory. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs `body` to the receiver once, under the egress policy: no redirect is followed (a 3xx is
 * an answer like any other), no answer within `timeoutMs` is a failure, and the response body
 * is read up to `MAX_RESPONSE_BYTES` and never kept.
 */
export const sendWebhook = async (
  target: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SendResult> => {
  try {
    const answer = await egressRequest(
      target,
      { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body },
      { ...options, maxBytes: MAX_RESPONSE_BYTES },
    );
    return { status: answer.status };
  } catch (error) {
    return { error: error instanceof EgressRefusedError ? 'address refused' : (error as Error).message };
  }
};
