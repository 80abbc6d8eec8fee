/**
 * Who consumes the service's block of a content. In the published service these are partner
 * platforms; a self-hosted service has none, so its consumers are its own distribution channels:
 * prefix sync (and the other published snapshots and feeds of the verdicts), the TAXII blocked
 * collection, and the organizations' webhooks.
 */
export const CONSUMERS = {
  blocklist: 'Prefix sync',
  taxii: 'TAXII blocked collection',
  webhook: 'Webhooks',
} as const;
export type ConsumerSlug = keyof typeof CONSUMERS;
export type Consumption = { consumer: ConsumerSlug; name: string; consumedAt: string };

/** The change that made a check key's verdict BLOCKED: its log version and its time. */
export type BlockStart = { version: string; at: string };

export interface ConsumptionStore {
  /** When the BLOCKED verdict at `checkKey` began; undefined when the key's verdict is not BLOCKED. */
  blockedSince(checkKey: string): Promise<BlockStart | undefined>;
  /** When the change `version` was first delivered to a webhook of one of `orgIds`; undefined when it was not (yet). */
  firstDelivery(orgIds: readonly string[], version: string): Promise<string | undefined>;
  /** When `checkKey` entered the TAXII blocked collection; undefined when it is not in it. */
  taxiiAddedAt(checkKey: string): Promise<string | undefined>;
}

/**
 * `blockedBy` of `POST /asset/search`: the channels that hand out the service's block at
 * `checkKey`, oldest first. Prefix sync publishes a verdict with the change that makes it, so it
 * consumed the block when the block began; the TAXII collection and the webhooks say when they
 * took it. Webhooks count only the caller's own organizations' (`orgIds`). The reads are bounded
 * whatever the content's history: the key's entry, and per organization its webhooks (one query)
 * and one delivery page of each (at most ten), and the TAXII collection's entry.
 */
export const consumersOf = async (
  store: ConsumptionStore,
  checkKey: string,
  orgIds: readonly string[],
): Promise<Consumption[]> => {
  const since = await store.blockedSince(checkKey);
  if (since === undefined) return [];
  const [delivered, collected] = await Promise.all([
    orgIds.length === 0 ? undefined : store.firstDelivery(orgIds, since.version),
    store.taxiiAddedAt(checkKey),
  ]);
  const times: [ConsumerSlug, string | undefined][] = [
    ['blocklist', since.at],
    ['taxii', collected],
    ['webhook', delivered],
  ];
  return times
    .flatMap(([consumer, consumedAt]) =>
      consumedAt === undefined ? [] : [{ consumer, name: CONSUMERS[consumer], consumedAt }],
    )
    .sort((a, b) => (a.consumedAt < b.consumedAt ? -1 : a.consumedAt > b.consumedAt ? 1 : 0));
};
