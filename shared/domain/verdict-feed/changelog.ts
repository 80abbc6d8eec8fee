import { BadRequestError, GoneError, TooManyRequestsError } from '../../errors.ts';
import type { AssetType } from '../allowlist/asset-types.ts';
import type { Timer } from '../check/index.ts';
import { fairGate } from '../core/concurrency.ts';
import { CHANGELOG_READS, LOG_TIMING } from './timing.ts';
import {
  type ChangeFeed,
  isVersion,
  positionAt,
  statusOf,
  timeOf,
  type VerdictChange,
  watchStatusOf,
} from './verdicts.ts';

export type ChangelogQuery = { since?: string; type?: AssetType; perPage: number; nextPage?: string };

const toChange = (change: VerdictChange) => ({
  content: change.key,
  type: change.type ?? null,
  status: statusOf(change.bits),
  watchStatus: watchStatusOf(change.bits),
  changedAt: change.changedAt,
  version: change.version,
});

const encodePage = (version: string): string => Buffer.from(version, 'utf8').toString('base64url');
const decodePage = (token: string): string => {
  const version = Buffer.from(token, 'base64url').toString('utf8');
  if (!isVersion(version)) throw new BadRequestError('next_page is not a page of this changelog');
  return version;
};

/**
 * The verdict changes after a version, for clients that keep the list locally. Only changes
 * older than the settle window are handed out, so no later commit can land before a version a
 * client holds. `version` is what the client keeps (and sends as `since` next time): the end of
 * what this page covers. Without `since` the changes start at the oldest one the log keeps. A
 * page reads a bounded part of the log (`ChangeFeed`): over a quiet stretch it may come back
 * short, or empty, with a `next_page` to go on from.
 */
export const readChangelog = async (
  feed: ChangeFeed,
  query: ChangelogQuery,
  now: number,
  settleMs: number = LOG_TIMING.settleMs,
) => {
  const oldest = positionAt(now - LOG_TIMING.retentionMs);
  const since = query.nextPage === undefined ? (query.since ?? oldest) : decodePage(query.nextPage);
  if (timeOf(since) < now - LOG_TIMING.retentionMs) {
    throw new GoneError(
      'Changes since this version are no longer kept: re-sync the full list from POST /asset/list, then follow the changelog',
    );
  }
  const until = positionAt(now - settleMs);
  if (since >= until) return { changes: [], next_page: null, version: since };
  const page = await feed.changes({ after: since, until, limit: query.perPage, type: query.type });
  return {
    changes: page.changes.map(toChange),
    next_page: page.next === undefined ? null : encodePage(page.next),
    version: page.next ?? until,
  };
};

/** `readChangelog` under the container's bound of `CHANGELOG_READS`; `caller` names whose read it is. */
export const changelogReader = (
  feed: ChangeFeed,
  timer: Timer,
  { settleMs = LOG_TIMING.settleMs }: { settleMs?: number } = {},
) => {
  const gate = fairGate(
    CHANGELOG_READS,
    timer,
    () => new TooManyRequestsError('Too many changelog reads at once: retry shortly', { retryAfterSeconds: 1 }),
  );
  return (caller: string, query: ChangelogQuery, now: number) =>
    gate.run(caller, () => readChangelog(feed, query, now, settleMs));
};
