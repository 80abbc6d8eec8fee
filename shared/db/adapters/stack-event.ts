import type { CloudFormationCustomResourceEvent, CloudFormationCustomResourceResponse, Context } from 'aws-lambda';
import { logger } from '../../logger.ts';

/** Sends CloudFormation the answer to a custom-resource request (a PUT to its pre-signed URL). */
export type StackAnswer = (url: string, answer: CloudFormationCustomResourceResponse) => Promise<void>;

export const isStackEvent = (event: unknown): event is CloudFormationCustomResourceEvent =>
  typeof event === 'object' && event !== null && 'RequestType' in event && 'ResponseURL' in event;

/** The pre-signed URL signs no content type: an empty one is what it expects. */
export const putStackAnswer: StackAnswer = async (url, answer) => {
  const response = await fetch(url, { method: 'PUT', headers: { 'content-type': '' }, body: JSON.stringify(answer) });
  if (!response.ok) throw new Error(`CloudFormation refused the answer: HTTP ${response.status}`);
};

const PHYSICAL_ID = 'run-once';

/**
 * A function invoked as a custom resource: runs `work` when the stack creates or updates the
 * resource (never on delete) and answers CloudFormation, which waits for that answer rather than
 * for the function; a failure is answered FAILED with its message, and not thrown, so Lambda
 * does not run the work again.
 */
export const answerStackEvent = async (
  event: CloudFormationCustomResourceEvent,
  work: () => Promise<unknown>,
  answer: StackAnswer,
): Promise<void> => {
  const common = {
    PhysicalResourceId: event.RequestType === 'Create' ? PHYSICAL_ID : event.PhysicalResourceId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  };
  try {
    if (event.RequestType !== 'Delete') await work();
  } catch (error) {
    logger.error('Custom resource request failed', { requestType: event.RequestType, error });
    const reason = error instanceof Error ? error.message : String(error);
    await answer(event.ResponseURL, { ...common, Status: 'FAILED', Reason: reason });
    return;
  }
  await answer(event.ResponseURL, { ...common, Status: 'SUCCESS' });
};

/**
 * A worker run both by its schedule and as a custom resource: `work` gets the invocation's
 * remaining time; a custom-resource request is answered through `answer` (answerStackEvent).
 */
export const scheduledOrStackEvent =
  <R>(work: (budgetMs: number | undefined) => Promise<R>, answer: StackAnswer) =>
  async (event: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<R | undefined> => {
    const budgetMs = context?.getRemainingTimeInMillis();
    if (!isStackEvent(event)) return work(budgetMs);
    await answerStackEvent(event, () => work(budgetMs), answer);
    return undefined;
  };
