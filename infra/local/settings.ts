import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { parseStageThresholds } from '../../shared/domain/account/organization-settings.ts';
import { parseOrigins } from '../cors.ts';

/** Local defaults; each can be overridden by the environment variable of the same meaning. */
export const LOCAL = {
  tableName: process.env.TABLE_NAME ?? 'asset-protection-local',
  dynamoPort: Number(process.env.DYNAMO_PORT ?? 8000),
  port: Number(process.env.PORT ?? 3000),
  dataDir: resolve(import.meta.dirname, '../../.data'),
  cursorSecret: process.env.CURSOR_SECRET ?? 'local-development-cursor-secret',
  listsDir: process.env.LISTS_DIR ?? resolve(import.meta.dirname, 'lists'),
  /** Comma-separated origins a browser page may call from; `*` when unset. */
  corsOrigins: parseOrigins(process.env.CORS_ORIGINS),
  verdictsDir: process.env.VERDICTS_DIR ?? resolve(import.meta.dirname, '../../.data/verdicts'),
  blocklistDir: process.env.BLOCKLIST_DIR ?? resolve(import.meta.dirname, '../../.data/blocklist'),
  /** How often `npm start` snapshots the verdicts, as the scheduled function does in AWS. */
  snapshotEveryMs: 5 * 60_000,
  /** The stage's healthcheck thresholds (JSON by healthcheck key), as `-c healthcheckThresholds` sets them in AWS; unset: the built-in ones. */
  healthcheckThresholds: process.env.HEALTHCHECK_THRESHOLDS,
  /** The AES-256 key that seals webhook signing secrets in the local table, created on first use. */
  webhookKeyFile: resolve(import.meta.dirname, '../../.data/webhook-secrets.key'),
  /** The blocklist's manifest signing keys, created on first use; `npm run admin -- blocklist rotate-key` rotates them. */
  blocklistSigningKeyFile:
    process.env.BLOCKLIST_SIGNING_KEY_FILE ?? resolve(import.meta.dirname, '../../.data/blocklist-signing-keys.json'),
};

const CHECKOUT = resolve(import.meta.dirname, '../..');
/**
 * A table whose name is this checkout's (a digest of its path): this checkout puts it in every
 * DynamoDB Local it starts, and its local commands write only to a DynamoDB Local that holds it.
 * Other checkouts on the same machine may run their own on the default port.
 */
export const OWNER_TABLE = `checkout-${createHash('sha256').update(CHECKOUT).digest('hex').slice(0, 16)}`;

export const localEndpoint = (): string => process.env.DYNAMODB_ENDPOINT ?? `http://127.0.0.1:${LOCAL.dynamoPort}`;

/** The environment a function has in AWS, pointed at the local table; handlers read it when they build their dependencies. */
export const applyLocalEnv = (endpoint: string): void => {
  process.env.TABLE_NAME = LOCAL.tableName;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.CURSOR_SECRET = LOCAL.cursorSecret;
  process.env.LISTS_DIR = LOCAL.listsDir;
  process.env.VERDICTS_DIR = LOCAL.verdictsDir;
  process.env.BLOCKLIST_DIR = LOCAL.blocklistDir;
  process.env.WEBHOOK_SECRETS_KEY_FILE = LOCAL.webhookKeyFile;
  process.env.BLOCKLIST_SIGNING_KEY_FILE = LOCAL.blocklistSigningKeyFile;
  process.env.WEBHOOK_ALLOW_LOOPBACK ??= 'true';
  if (LOCAL.healthcheckThresholds !== undefined) {
    // Refused at start, as synth refuses it, rather than at the first healthcheck.
    parseStageThresholds(LOCAL.healthcheckThresholds);
    process.env.HEALTHCHECK_THRESHOLDS = LOCAL.healthcheckThresholds;
  }
  // The demo's DNS and certificate-transparency recordings, unless a test points at its own.
  process.env.DETECTION_DNS_FIXTURE ??= resolve(import.meta.dirname, 'detections/dns-fixture.json');
  process.env.DETECTION_CT_RECORDING ??= resolve(import.meta.dirname, 'detections/ct-sample.json');
  process.env.DETECTION_CT_STATIC_RECORDING ??= resolve(import.meta.dirname, 'detections/static-log');
};
