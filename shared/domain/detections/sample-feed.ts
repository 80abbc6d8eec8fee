import { matchNames } from './certstream.ts';
import type { Candidate, CandidateDeps } from './model.ts';
import { feedPushSource } from './pipeline.ts';
import { profileOf } from './scoring.ts';

const hostOf = (content: string): string | undefined => {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(content) ? content : `https://${content}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
};

/**
 * Sampled check content into ASSET_CHECK detections: for each organization with an enabled
 * ASSET_CHECK config, the samples whose host matches its brand terms (as CT names are matched)
 * go through the pipeline, which records those that score as lookalikes. Returns the count recorded.
 */
export const feedCheckSamples = async (deps: CandidateDeps, contents: readonly string[], now: number) => {
  const hosts = new Map<string, string[]>();
  for (const content of new Set(contents)) {
    const host = hostOf(content);
    if (host !== undefined) hosts.set(host, [...(hosts.get(host) ?? []), content]);
  }
  if (hosts.size === 0) return 0;
  const organizations = new Set((await deps.store.listListed('ASSET_CHECK')).map((listing) => listing.orgId));
  let recorded = 0;
  for (const orgId of organizations) {
    const { profile } = await profileOf(deps, orgId, null);
    const candidates: Candidate[] = matchNames([...hosts.keys()], profile.terms).flatMap((host) =>
      (hosts.get(host) ?? []).map((content) => ({ content, reason: 'seen by the asset check, unknown' })),
    );
    recorded += (await feedPushSource(deps, orgId, 'ASSET_CHECK', candidates, now)).length;
  }
  return recorded;
};
