export const required = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value.trim() === '') throw new Error(`Missing required environment variable ${name}`);
  return value;
};

const optional = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
};

/** Environment, read by each module that needs a value when it loads (cold start); nothing else reads process.env. */
export const config = {
  /** Required by every function that touches the table; the list sync does not. */
  get tableName(): string {
    return required('TABLE_NAME');
  },
  /** DynamoDB Local's address; unset in AWS. */
  dynamoEndpoint: optional('DYNAMODB_ENDPOINT'),
  /** Derives the key that encrypts `next_page` cursors; read (and required) only by functions that page. */
  get cursorSecret(): string {
    return required('CURSOR_SECRET');
  },
  /** S3 bucket of the asset check's external list snapshots; unset locally, where they load from `listsDir`. */
  listsBucket: optional('LISTS_BUCKET'),
  /** Directory of local list snapshots (default `infra/local/lists`). */
  listsDir: optional('LISTS_DIR'),
  /** JSON object of external list URLs by source name, fetched by the list sync function. */
  listUrls: optional('LIST_URLS'),
};
