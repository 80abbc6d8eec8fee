import { BlocklistClient } from '../../shared/blocklist-client/client.ts';
import { shippedSuffixes } from '../../shared/db/adapters/public-suffix-file.ts';
import { rotateKeys, type SigningKeyStore } from '../../shared/domain/blocklist/signing-keys.ts';

export const BLOCKLIST_USAGE = `  blocklist check <url> [--base <API base URL>] [--key <API key>]
                                       syncs the hash-prefix blocklist as a wallet would and looks the URL
                                       up locally, confirming a local match with its prefixes only (default
                                       base: the local gateway; default key: the demo organization's), and says
                                       which key signed the manifest it trusted and how old it is
  blocklist rotate-key [--signing-secret <secret ARN>]
                                       publishes the next manifest signing key, which signs 15 minutes later;
                                       the previous key stays published 7 days (locally: .data/; in AWS: the
                                       stack's BlocklistSigningSecret, whose first key this also creates)`;

/** `blocklist rotate-key`: the next signing key into the store; it says which key and from when it signs. */
export const rotateKeyCommand = async (store: SigningKeyStore, now: () => number = Date.now): Promise<string> => {
  const current = await store.load();
  const { set, next, signsFrom } = await rotateKeys(current, now());
  await store.save(set);
  return `Published signing key ${next.kid}; it signs from ${signsFrom}. ${set.keys.length} key(s) published.`;
};

/** `blocklist check <url>`: the reference client against any deployment; it needs no table. */
export const blocklistCommand = async (
  args: readonly string[],
  options: { base: string; key: string },
  progress: (line: string) => void,
): Promise<string> => {
  const [action, url] = args;
  if (action !== 'check' || url === undefined || args.length !== 2) {
    throw new Error(
      'Usage: blocklist check <url> [--base <API base URL>] [--key <API key>] | blocklist rotate-key [--signing-secret <ARN>]',
    );
  }
  const client = new BlocklistClient({ baseUrl: options.base, apiKey: options.key, suffixes: shippedSuffixes() });
  const started = performance.now();
  const { refused } = await client.sync();
  if (refused !== undefined) throw new Error(`refused the blocklist: ${refused}`);
  const trusted = client.trusted;
  progress(`synced ${client.size} prefixes from ${options.base} in ${(performance.now() - started).toFixed(0)} ms`);
  if (trusted !== undefined) {
    const age = Math.round((Date.now() - Date.parse(trusted.issuedAt)) / 1000);
    progress(`trusted the manifest of version ${trusted.version}, signed by key ${trusted.kid}, issued ${age} s ago`);
  }
  const lookup = await client.lookup(url);
  const sent = lookup.sent === 0 ? 'nothing sent' : `${lookup.sent} prefix(es) confirmed`;
  return lookup.blocked ? `BLOCKED (${lookup.expression}; ${sent})` : `not blocked (${sent})`;
};
