import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import type { PublicReport } from '../domain/lifecycle/report-page.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

/** Styles from this origin only, no script at all, nothing else loaded. */
export const REPORT_PAGE_POLICY =
  "default-src 'none'; style-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page's stylesheet, relative to `/v2/reports/{id}` (and `/api/v2/reports/{id}`). */
const STYLESHEET = '../static/report.css';

const page = (title: string, body: string): string => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="robots" content="noindex">
    <title>${escapeHtml(title)}</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="${STYLESHEET}">
  </head>
  <body>
${body}
  </body>
</html>
`;

const VERDICT_TEXT = { BLOCKED: 'Blocked', ALLOWED: 'Allowed', UNKNOWN: 'Not blocked' } as const;

const time = (id: string, at: string): string =>
  `<time id="${id}" datetime="${escapeHtml(at)}">${escapeHtml(new Date(at).toUTCString())}</time>`;

export const reportHtml = (report: PublicReport): string => {
  const rows = report.assets
    .map(
      (asset) => `        <tr>
          <td class="content"><code>${escapeHtml(asset.content)}</code></td>
          <td>${escapeHtml(asset.type)}</td>
          <td><span class="verdict ${asset.verdict.toLowerCase()}" data-verdict="${asset.verdict}">${VERDICT_TEXT[asset.verdict]}</span></td>
        </tr>`,
    )
    .join('\n');
  const assets =
    report.assets.length === 0
      ? '      <p id="assets-pending">Its assets are listed here once reviewed.</p>'
      : `      <table id="assets">
        <thead><tr><th>Asset</th><th>Type</th><th>Current verdict</th></tr></thead>
        <tbody>
${rows}
        </tbody>
      </table>`;
  return page(
    `Report ${report.id}`,
    `    <main>
      <h1>Report <span id="report-id">${escapeHtml(String(report.id))}</span></h1>
      <dl>
        <dt>Status</dt><dd id="report-status">${escapeHtml(report.status)}</dd>
        <dt>Created</dt><dd>${time('report-created', report.createdAt)}</dd>
        <dt>Updated</dt><dd>${time('report-updated', report.updatedAt)}</dd>
      </dl>
${assets}
    </main>`,
  );
};

export const notFoundHtml = (): string =>
  page(
    'Report not found',
    `    <main>
      <h1>Report not found</h1>
      <p>No report has this address.</p>
    </main>`,
  );

export const htmlResponse = (statusCode: number, html: string): APIGatewayProxyResultV2 => ({
  statusCode,
  headers: {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': REPORT_PAGE_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    // A verdict changes: a minute keeps a shared link cheap and the page close to current.
    'cache-control': statusCode === 200 ? 'public, max-age=60' : 'no-store',
  },
  body: html,
});
