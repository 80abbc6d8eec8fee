/** DynamoDB's limits that shape how writes are cut: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html */

/** Items of one TransactWriteItems request. */
export const TRANSACTION_ITEMS = 100;
/** The aggregate size of one transaction's items. */
export const TRANSACTION_BYTES = 4_000_000;
/** The size of one item, its attribute names included. */
export const ITEM_BYTES = 400_000;
