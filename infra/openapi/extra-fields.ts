/**
 * Routes whose success answers carry, on purpose, fields beyond the published page's example, by
 * route name: the fields (as `results[].asset`, an array's items written `[]`) and why. The
 * description lists them as `x-extra-fields` on the operation and says why in its description;
 * the contract suite fails on any other field beyond a published example.
 */
export const EXTRA_FIELDS: Record<string, { fields: string[]; why: string }> = {
  'create-assets': {
    fields: ['results[].asset'],
    why: 'each added item also carries the asset as stored, so a client needs no second read to show it.',
  },
  'update-asset': {
    fields: ['type', 'status', 'group', 'createdAt', 'updatedAt'],
    why: 'the updated asset is answered whole (the asset of the list), with the published `groupId` beside its `group`.',
  },
  'list-reports': {
    fields: ['nextCursor', 'reports[].externalId', 'reports[].title', 'reports[].description', 'reports[].updatedAt'],
    why: 'the published spec’s `nextCursor` is answered beside the page’s `cursor` (the same cursor), and each report carries the fields of the published spec that the page leaves out.',
  },
  'list-threats': {
    fields: ['threats[].externalId'],
    why: 'the id a client gave the threat when it imported it, or null.',
  },
  'list-takedowns': {
    fields: ['takedowns[].externalId'],
    why: 'the id a client gave the takedown when it imported it, or null.',
  },
  'list-verdicts': {
    fields: ['assets[].version'],
    why: 'each entry’s place in the verdict feed, the cursor `/asset/changelog` resumes from.',
  },
  'search-reports': {
    fields: ['results', 'totalCount'],
    why: 'the answer per asked content (`results`) and the number of reports, beside the published `reports`.',
  },
  'list-user-organizations': {
    fields: ['organizations[].role'],
    why: 'the caller’s role in each organization.',
  },
  'get-user-organization': {
    fields: ['role'],
    why: 'the caller’s role in the organization.',
  },
  'healthcheck-reviewing-backlog': {
    fields: ['key', 'status', 'value', 'detail'],
    why: 'the names of the previous version (`key` = `id`, `status` = `severity`, `value` = `observed`, and a sentence), deprecated and answered for one more version.',
  },
  'check-asset': {
    fields: ['source', 'sources', 'reason'],
    why: 'the published answer is `{status}` (with `reason` when blocked); this one also names the source that decided, every source consulted with its own verdict, and a `reason` for verdicts that are not a plain listing (`not-found`, `parent-domain`, `timeout`, …).',
  },
};
