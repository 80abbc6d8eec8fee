import type { CheckIndexStore, PublicSuffixes } from '../../shared/domain/check/index.ts';
import { publicReport, type ReportDirectory } from '../../shared/domain/lifecycle/report-page.ts';
import { publicHandler } from '../../shared/http/api-handler.ts';
import { htmlResponse, notFoundHtml, reportHtml } from '../../shared/http/report-page.ts';
import * as runtime from '../../shared/runtime.ts';

type Deps = { reports: ReportDirectory; verdicts: CheckIndexStore; suffixes: PublicSuffixes };

/** The public page of a report, the `reportUrl` of the lookups: no key, HTML, 404 page for an unknown id. */
export const createHandler = (deps: Deps) =>
  publicHandler(async (event) => {
    const report = await publicReport(deps, event.pathParameters?.reportId ?? '');
    return report === undefined ? htmlResponse(404, notFoundHtml()) : htmlResponse(200, reportHtml(report));
  });

export const handler = createHandler({
  reports: runtime.reportDirectory(),
  verdicts: runtime.verdicts(),
  suffixes: runtime.suffixes(),
});
