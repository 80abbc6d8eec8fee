/**
 * CERTSTREAM through a static-CT log end to end: a generated log of ~100,000 names served over
 * loopback HTTP (tiles gzip-encoded, as logs send them), read by the static-CT reader through the
 * egress client and matched against the demo brands' terms. Reported: names matched per second
 * (reader, server and matching on this one process), and bytes fetched per 1,000 names with and
 * without Sunlight's names tiles.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { writeStaticLog } from '../../infra/local/write-static-log.ts';
import { recordedLogClient } from '../../shared/db/detection-sources.ts';
import { httpTileClient } from '../../shared/db/static-ct-sources.ts';
import { certificateNames, matchNames } from '../../shared/domain/detections/certstream.ts';
import { brandProfile } from '../../shared/domain/threat-engine/engine.ts';
import { logEntry } from '../fixtures/certificates.ts';

const CERTIFICATES = 64_000;
const WORDS = ['blue', 'river', 'stone', 'cloud', 'pixel', 'maple', 'orbit', 'delta', 'nova', 'cedar'];
const TLDS = ['com', 'net', 'org', 'io', 'dev', 'shop', 'xyz'];
const nameAt = (i: number) =>
  i % 1000 === 0
    ? `acme-login-${i}.xyz`
    : `${WORDS[i % WORDS.length]}${WORDS[(i * 7) % WORDS.length]}${i}.${TLDS[i % TLDS.length]}`;
const profile = brandProfile(
  'acme',
  [
    { slug: 'acme-wallet', name: 'Acme Wallet' },
    { slug: 'acme-exchange', name: 'Acme Exchange' },
  ],
  ['acme.com'],
);

/** Every file of a folder, gzip-encoded once up front so that serving costs the reader's run nothing but the copy. */
const encodedFiles = (dir: string): Map<string, Buffer> => {
  const files = new Map<string, Buffer>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const body = readFileSync(path);
        files.set(`/${relative(dir, path)}`, body[0] === 0x1f && body[1] === 0x8b ? body : gzipSync(body));
      }
    }
  };
  walk(dir);
  return files;
};

const serve = async (files: Map<string, Buffer>) => {
  let bytes = 0;
  const server = createServer((request, response) => {
    const body = files.get(request.url ?? '');
    if (body === undefined) {
      response.writeHead(404).end();
      return;
    }
    bytes += body.length;
    response.writeHead(200, { 'Content-Encoding': 'gzip' }).end(body);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    bytes: () => bytes,
    close: () => new Promise((closed) => server.close(closed)),
  };
};

const LOCAL = { policy: { allowLoopback: true }, resolve: async () => ['127.0.0.1'] };

/** One run over the whole log: names read through the tiles and matched, timed together. */
const runOver = async (dir: string) => {
  const server = await serve(encodedFiles(dir));
  try {
    const reader = certificateNames(recordedLogClient('/dev/null'), {
      replay: true,
      tiles: httpTileClient(LOCAL),
      maxTiles: 10_000,
    });
    const start = process.hrtime.bigint();
    const { names } = await reader.read(
      [{ monitoringUrl: server.url, kind: 'static' }],
      async () => undefined,
      1_000_000,
    );
    const matched = matchNames(names, profile.terms);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return { names: names.length, matched: matched.length, seconds, bytes: server.bytes() };
  } finally {
    await server.close();
  }
};

export const benchStaticCt = async (): Promise<{ name: string; value: string }[]> => {
  const root = mkdtempSync(join(tmpdir(), 'bench-static-ct-'));
  try {
    const entries = Array.from({ length: CERTIFICATES }, (_, i) =>
      logEntry(i % 2 === 0 ? [nameAt(i), `www.${nameAt(i)}`] : [nameAt(i)], i + 1, i % 3 === 0),
    );
    writeStaticLog(join(root, 'names'), entries);
    writeStaticLog(join(root, 'data'), entries, { namesTiles: false });
    await runOver(join(root, 'names'));
    const withNames = await runOver(join(root, 'names'));
    const withData = await runOver(join(root, 'data'));
    const perSecond = (run: typeof withNames) => Math.round(run.names / run.seconds).toLocaleString('en');
    const perThousand = (run: typeof withNames) => Math.round((run.bytes / run.names) * 1000).toLocaleString('en');
    return [
      {
        name: 'detections: static-CT names matched per second, names tiles',
        value: `${perSecond(withNames)} (${withNames.names.toLocaleString('en')} names, ${withNames.matched} passed the prefilter, goal ≥ 20,000)`,
      },
      {
        name: 'detections: static-CT names matched per second, data tiles',
        value: `${perSecond(withData)} (${withData.names.toLocaleString('en')} names from ${CERTIFICATES.toLocaleString('en')} certificates, a third precertificates; goal ≥ 20,000)`,
      },
      {
        name: 'detections: static-CT bytes fetched per 1,000 names',
        value: `${perThousand(withNames)} with names tiles, ${perThousand(withData)} with data tiles (gzip on the wire)`,
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
};
