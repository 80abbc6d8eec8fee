import { parseArgs } from 'node:util';
import { fileSigningKeys } from '../../shared/db/blocklist-signing-keys.ts';
import { secretSigningKeys } from '../../shared/db/blocklist-signing-secret.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { systemResolver } from '../../shared/egress/index.ts';
import { blocklistCommand, rotateKeyCommand } from '../admin/blocklist-commands.ts';
import { runAdminCommand, USAGE } from '../admin/commands.ts';
import { logListCommand } from '../admin/log-list-commands.ts';
import { listenForWebhooks } from '../admin/webhook-listen.ts';
import { withLocalTable } from './connect.ts';
import { LOCAL } from './settings.ts';

/** The demo organization's key (infra/local/demo.json), for `blocklist check` against `npm start`. */
const DEMO_KEY = 'demo-acme-0123456789abcdef';

/** `npm run admin`: the operator's commands on a table in AWS (`--table`) or, without it, on the local table. */
const main = async () => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      table: { type: 'string' },
      name: { type: 'string' },
      flags: { type: 'string' },
      org: { type: 'string' },
      user: { type: 'string' },
      scopes: { type: 'string' },
      description: { type: 'string' },
      group: { type: 'string' },
      copy: { type: 'boolean' },
      base: { type: 'string' },
      key: { type: 'string' },
      port: { type: 'string' },
      secret: { type: 'string' },
      'signing-secret': { type: 'string' },
      note: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length === 0) {
    console.log(USAGE);
    return;
  }
  if (positionals[0] === 'webhook' && positionals[1] === 'listen') {
    const port = Number(values.port ?? 4000);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error('--port must be a port number');
    await listenForWebhooks({ port, ...(values.secret ? { secret: values.secret } : {}) }, (line) => console.log(line));
    console.log(`Listening on http://127.0.0.1:${port}/ (Ctrl-C stops)`);
    return;
  }
  const flags = values as Record<string, string>;
  const progress = (line: string) => console.log(line);
  if (positionals[0] === 'blocklist' && positionals[1] === 'rotate-key') {
    const secret = values['signing-secret'];
    const store = secret ? secretSigningKeys(secret) : fileSigningKeys(LOCAL.blocklistSigningKeyFile);
    console.log(await rotateKeyCommand(store));
    return;
  }
  if (positionals[0] === 'blocklist') {
    const base = values.base ?? `http://127.0.0.1:${LOCAL.port}/v2`;
    console.log(await blocklistCommand(positionals.slice(1), { base, key: values.key ?? DEMO_KEY }, progress));
    return;
  }
  if (positionals[0] === 'detections' && positionals[1] === 'log-list') {
    console.log(
      await logListCommand(positionals.slice(2), { policy: { allowLoopback: false }, resolve: systemResolver }),
    );
    return;
  }
  const message = values.table
    ? await runAdminCommand(
        createDocumentClient(process.env.DYNAMODB_ENDPOINT),
        values.table,
        positionals,
        flags,
        progress,
      )
    : await withLocalTable((endpoint) => {
        // The key the local runtime seals webhook secrets and headers with (`migrate webhooks`).
        process.env.WEBHOOK_SECRETS_KEY_FILE ??= LOCAL.webhookKeyFile;
        return runAdminCommand(createDocumentClient(endpoint), LOCAL.tableName, positionals, flags, progress);
      });
  console.log(message);
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
