import { BlocklistClient } from '../../shared/blocklist-client/client.ts';

export const BLOCKLIST_USAGE = `  blocklist check <url> [--base <API base URL>] [--key <API key>]
                                       syncs the hash-prefix blocklist as a wallet would and looks the URL
                                       up locally, confirming a local match with its prefixes only (default
                                       base: the local gateway; default key: the demo organization's)`;

/** `blocklist check <url>`: the reference client against any deployment; it needs no table. */
export const blocklistCommand = async (
  args: readonly string[],
  options: { base: string; key: string },
  progress: (line: string) => void,
): Promise<string> => {
  const [action, url] = args;
  if (action !== 'check' || url === undefined || args.length !== 2) {
    throw new Error('Usage: blocklist check <url> [--base <API base URL>] [--key <API key>]');
  }
  const client = new BlocklistClient({ baseUrl: options.base, apiKey: options.key });
  const started = performance.now();
  await client.sync();
  progress(`synced ${client.size} prefixes from ${options.base} in ${(performance.now() - started).toFixed(0)} ms`);
  const lookup = await client.lookup(url);
  const sent = lookup.sent === 0 ? 'nothing sent' : `${lookup.sent} prefix(es) confirmed`;
  return lookup.blocked ? `BLOCKED (${lookup.expression}; ${sent})` : `not blocked (${sent})`;
};
