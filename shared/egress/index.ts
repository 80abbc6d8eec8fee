/**
 * The egress policy, the one way the service reaches an address a customer or an operator's
 * configuration names (webhook receivers, certificate-transparency logs, external lists):
 * `https` only (loopback `http` where the local stage allows it), no credentials in URLs, names
 * resolved by the service and every answer and the connected address checked against the
 * public address space, redirects never followed, answers bounded in time and bytes.
 */
export { isLoopbackAddress, isPublicAddress } from './addresses.ts';
export {
  type Egress,
  type EgressAgents,
  type EgressOptions,
  type EgressRequest,
  type EgressResponse,
  egressRequest,
  keepAliveAgents,
  systemResolver,
} from './client.ts';
export {
  checkUrl,
  type EgressPolicy,
  EgressRefusedError,
  type Resolver,
  refusalOf,
  targetOf,
} from './policy.ts';
