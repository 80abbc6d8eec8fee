/**
 * TAXII `objects/`: what one page costs at 10^3 and at 10^5 indicators in a collection, in a process
 * of its own (`benchTaxii`). Pages of 1,000 (the largest TAXII page here) are read with the route's
 * domain function and repository through a client that counts the items each Query and BatchGetItem
 * read; objects/s is the objects served over the time of those pages (from the start, and further in). Goal: items read per page at
 * 10^5 within 1.2× of 10^3 (a page's cost is independent of the collection's size).
 */
import { percentile, type Row, rowsOfChild, runAsChild } from './child.ts';

const TABLE = 'bench-taxii';
const SIZES = [1_000, 100_000] as const;
const PAGE = 1000;
/** Pages read per walk: the whole collection at 10^3. */
const PAGES = 10;
const GOAL_RATIO = 1.2;

export const benchTaxii = async (endpoint: string): Promise<Row[]> =>
  rowsOfChild('test/bench/taxii.ts', endpoint, { TABLE_NAME: TABLE, DYNAMODB_ENDPOINT: endpoint });

const run = async (endpoint: string): Promise<Row[]> => {
  const { BatchWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const { ensureTable } = await import('../../infra/local/dynamo.ts');
  const { createDocumentClient } = await import('../../shared/db/client.ts');
  const { enteredItems, taxiiRepository, ensureCollectionIds } = await import('../../shared/db/taxii-repository.ts');
  const { cursorCodec } = await import('../../shared/domain/core/cursor.ts');
  const { mapConcurrently } = await import('../../shared/domain/core/concurrency.ts');
  const { readPage } = await import('../../shared/domain/taxii/index.ts');

  await ensureTable(endpoint, TABLE);
  const db = createDocumentClient(endpoint);
  const cursors = cursorCodec(() => 'bench-taxii-cursor-secret');

  const load = async (orgId: string, count: number) => {
    await ensureCollectionIds(db, TABLE, orgId);
    const batches = Array.from({ length: Math.ceil(count / 12) }, (_, b) =>
      Array.from({ length: Math.min(12, count - b * 12) }, (_, i) =>
        enteredItems({
          orgId,
          collection: 'blocked',
          checkKey: `bench-${b * 12 + i}.example`,
          assetType: 'URL',
          generation: `bench:${b * 12 + i}`,
          created: '2026-02-01T00:00:00.000Z',
          enter: true,
        }),
      ).flat(),
    );
    await mapConcurrently(batches, 4, async (items) => {
      let pending: Record<string, unknown[]> | undefined = { [TABLE]: items.map((Item) => ({ PutRequest: { Item } })) };
      while (pending && Object.keys(pending).length > 0) {
        // A busy host can outlast the client's per-call budget: the same batch again is harmless.
        const result = await db.send(new BatchWriteCommand({ RequestItems: pending as never })).catch(() => undefined);
        if (result) pending = result.UnprocessedItems as Record<string, unknown[]> | undefined;
      }
    });
  };

  /** A client that counts the items its Queries and BatchGetItems read. */
  const counting = () => {
    const client = createDocumentClient(endpoint);
    const counts = { items: 0 };
    client.middlewareStack.add(
      (next) => async (args) => {
        const output = await next(args);
        const out = output.output as { ScannedCount?: number; Responses?: Record<string, unknown[]> };
        counts.items += out.ScannedCount ?? 0;
        for (const items of Object.values(out.Responses ?? {})) counts.items += items.length;
        return output;
      },
      { step: 'initialize', name: 'countReads' },
    );
    return { client, counts };
  };

  const measure = async (orgId: string, startAfter?: string) => {
    const { client, counts } = counting();
    const store = taxiiRepository(client, TABLE);
    const caller = { orgId, organizationName: orgId, canWrite: false, keyHash: 'bench' };
    const perPage: number[] = [];
    const times: number[] = [];
    let objects = 0;
    let next: string | undefined;
    const started = performance.now();
    for (let i = 0; i < PAGES; i++) {
      const before = counts.items;
      const at = performance.now();
      const page = await readPage({ store, cursors }, caller, 'blocked', {
        limit: PAGE,
        version: 'last',
        ...(next === undefined ? (startAfter === undefined ? {} : { addedAfter: startAfter }) : { next }),
      });
      times.push(performance.now() - at);
      perPage.push(counts.items - before);
      objects += page.served.length;
      next = page.next;
      if (!page.more) break;
    }
    const seconds = (performance.now() - started) / 1000;
    return {
      itemsPerPage: percentile(perPage, 0.5),
      p50: percentile(times, 0.5),
      rate: objects / seconds,
      pages: perPage.length,
    };
  };

  const rows: Row[] = [];
  const results: { size: number; itemsPerPage: number }[] = [];
  for (const size of SIZES) {
    const orgId = `bench-${size}`;
    const loadStarted = performance.now();
    await load(orgId, size);
    const loaded = ((performance.now() - loadStarted) / 1000).toFixed(0);
    const fromStart = await measure(orgId);
    // Further in (as far as one Query's megabyte reaches), where a client polling with added_after picks up.
    const store = taxiiRepository(db, TABLE);
    const later = (await store.versions(orgId, 'blocked', undefined, Math.floor(size / 2))).versions.at(-1)?.dateAdded;
    const fromLater = await measure(orgId, later);
    results.push({ size, itemsPerPage: Math.max(fromStart.itemsPerPage, fromLater.itemsPerPage) });
    rows.push({
      name: `${size.toLocaleString('en')} indicators (loaded in ${loaded} s): pages of ${PAGE} from the start / further in`,
      value: `${fromStart.itemsPerPage} / ${fromLater.itemsPerPage} items read per page (median), p50 ${fromStart.p50.toFixed(0)} / ${fromLater.p50.toFixed(0)} ms a page, ${fromStart.rate.toFixed(0)} / ${fromLater.rate.toFixed(0)} objects/s`,
    });
  }
  const [small, large] = results;
  const ratio = (large?.itemsPerPage ?? 0) / (small?.itemsPerPage ?? 1);
  rows.push({
    name: 'items read per page, 10^5 vs 10^3 indicators',
    value: `×${ratio.toFixed(2)} (goal ≤ ${GOAL_RATIO}${ratio <= GOAL_RATIO ? '' : ', OVER'})`,
  });
  return rows;
};

runAsChild('taxii.ts', run);
