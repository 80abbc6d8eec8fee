import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';

/** One entry of a TransactWriteItems request (document-client form). */
export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];
