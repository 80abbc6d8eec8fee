import { isIP } from 'node:net';
import { isLoopbackAddress, isPublicAddress } from './addresses.ts';

/** The stage's rule: whether `http` to this host's loopback is allowed (the local runtime only, never in AWS). */
export type EgressPolicy = { allowLoopback: boolean };

/** Resolves a host name to every address it has now. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** A URL or an address the egress policy does not let the service reach. */
export class EgressRefusedError extends Error {
  override name = 'EgressRefusedError';
}

/** Where a URL may lead: a public address (`https`), or this host's loopback (`http` where the stage allows it). */
export type Reach = 'public' | 'loopback';

/** A URL the policy accepts in form, with the host to resolve (no brackets, no trailing dot) and where it may lead. */
export type Target = { url: URL; host: string; reach: Reach };

/** The only `http` hosts a local stage reaches, each with a port. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost']);

const isLocalhostName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/** Whether the policy lets a connection for a URL of `reach` go to `address`. */
export const isAllowedAddress = (address: string, reach: Reach): boolean =>
  reach === 'public' ? isPublicAddress(address) : isLoopbackAddress(address);

/**
 * The URL's form under the policy: `https` with no credentials, to a name or a public address
 * (`localhost` names and loopback addresses refused in every stage); with `allowLoopback`, also
 * `http://127.0.0.1:<port>` and `http://localhost:<port>`. The host is read as WHATWG URL
 * normalises it (`https://2130706433/` is `https://127.0.0.1/`). Where a name resolves is
 * checked by `checkUrl` and again on every connection.
 */
export const targetOf = (text: string, policy: EgressPolicy): Target => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new EgressRefusedError('not an absolute URL');
  }
  if (url.username !== '' || url.password !== '') throw new EgressRefusedError('credentials in the URL');
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (url.protocol === 'http:') {
    if (!policy.allowLoopback || !LOOPBACK_HOSTS.has(host) || url.port === '') {
      throw new EgressRefusedError('http is not allowed');
    }
    return { url, host, reach: 'loopback' };
  }
  if (url.protocol !== 'https:') throw new EgressRefusedError(`${url.protocol} is not allowed`);
  if (isLocalhostName(host)) throw new EgressRefusedError('https to loopback is not allowed');
  if (isIP(host) !== 0 && !isPublicAddress(host)) throw new EgressRefusedError(`${host} is not a public address`);
  return { url, host, reach: 'public' };
};

/** Refuses a name's answers unless every one of them is allowed: one private answer among public ones refuses the name. */
export const checkAddresses = (host: string, addresses: readonly string[], reach: Reach): void => {
  if (addresses.length === 0) throw new EgressRefusedError(`${host} has no address`);
  const refused = addresses.find((address) => !isAllowedAddress(address, reach));
  if (refused !== undefined) throw new EgressRefusedError(`${host} resolves to ${refused}, which is not allowed`);
};

/**
 * The URL, when the policy lets the service reach it now: its form (`targetOf`) and every
 * address its name resolves to. A name that does not resolve is refused. At connection time the
 * client checks again, on the addresses it connects to.
 */
export const checkUrl = async (text: string, policy: EgressPolicy, resolve: Resolver): Promise<URL> => {
  const { url, host, reach } = targetOf(text, policy);
  if (isIP(host) !== 0) return url;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    throw new EgressRefusedError(`${host} does not resolve`, { cause: error });
  }
  checkAddresses(host, addresses, reach);
  return url;
};

/** Why the policy refuses `text` now, or undefined when it lets the service reach it. */
export const refusalOf = async (text: string, policy: EgressPolicy, resolve: Resolver): Promise<string | undefined> => {
  try {
    await checkUrl(text, policy, resolve);
    return undefined;
  } catch (error) {
    if (error instanceof EgressRefusedError) return error.message;
    throw error;
  }
};
