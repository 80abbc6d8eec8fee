import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';

/** An item's own attributes: without its table key and its entity name. */
export const attributesOf = <T>(item: Record<string, unknown>): T => {
  const { PK: _pk, SK: _sk, entity: _entity, ...rest } = item;
  return rest as T;
};

/** Runs a conditional write; true when its condition did not hold (any other failure is thrown). */
export const conditionFailed = async (write: Promise<unknown>): Promise<boolean> => {
  try {
    await write;
    return false;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return true;
    throw error;
  }
};

/** Runs a conditional write; false when its condition did not hold (any other failure is thrown). */
export const conditionHeld = async (write: Promise<unknown>): Promise<boolean> => !(await conditionFailed(write));

/** A conditional update; false when its condition did not hold. */
export const updateIf = (db: DynamoDBDocumentClient, input: UpdateCommandInput): Promise<boolean> =>
  conditionHeld(db.send(new UpdateCommand(input)));
