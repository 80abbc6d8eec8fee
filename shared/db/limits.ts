/**
 * DynamoDB's request and item limits that decide how the repositories cut their work
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html). The sizes
 * are taken in decimal, a little below the binary limits (4 MiB, 400 KiB).
 */

/** Items of one TransactWriteItems request. */
export const TRANSACTION_ITEMS = 100;
/** The aggregate size of one transaction's items. */
export const TRANSACTION_BYTES = 4_000_000;
/** Keys of one BatchGetItem request. */
export const BATCH_GET_ITEMS = 100;
/** Puts and deletes of one BatchWriteItem request. */
export const BATCH_WRITE_ITEMS = 25;
/** The size of one item, its attribute names included. */
export const ITEM_BYTES = 400_000;
