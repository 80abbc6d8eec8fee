/** The reference renderer's attribution logo, an image on its CDN: the page's policy would block it, an error on every load. */
const REDOC_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/**
 * The files the pages are made of, by the name served at `GET /v2/static/{file}`, with their path from the project
 * root. The libraries are served from node_modules: no third-party origin at run time.
 */
export const STATIC_FILES = {
  'redoc.standalone.js': {
    path: 'node_modules/redoc/bundles/redoc.standalone.js',
    type: 'text/javascript',
    // An empty image instead: it fails to decode and the renderer hides the logo (its own fallback), with no request.
    rewrite: (text: string) => text.replaceAll(REDOC_LOGO, 'data:,'),
  },
  'chart.umd.min.js': { path: 'node_modules/chart.js/dist/chart.umd.min.js', type: 'text/javascript' },
  'docs.js': { path: 'functions/pages/static/docs.js', type: 'text/javascript' },
  'dashboard.js': { path: 'functions/pages/static/dashboard.js', type: 'text/javascript' },
  'dashboard.css': { path: 'functions/pages/static/dashboard.css', type: 'text/css' },
  'report.css': { path: 'functions/pages/static/report.css', type: 'text/css' },
} as const;

export const PAGES = {
  docs: { path: 'functions/pages/static/docs.html', type: 'text/html; charset=utf-8' },
  dashboard: { path: 'functions/pages/static/dashboard.html', type: 'text/html; charset=utf-8' },
} as const;

/**
 * Scripts, styles and requests from this origin only, no inline script, no eval. The reference's renderer injects
 * its styles at run time and searches in a worker it creates from a blob.
 */
export const CONTENT_SECURITY_POLICY = {
  docs: "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  dashboard:
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
} as const;
