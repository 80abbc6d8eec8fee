import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { logListCommand } from '../../../infra/admin/log-list-commands.ts';
import { writeStaticLog } from '../../../infra/local/write-static-log.ts';
import { httpTileClient } from '../../../shared/db/static-ct-sources.ts';
import { namesOfCertificate } from '../../../shared/domain/detections/certificate-names.ts';
import { namesOf } from '../../../shared/domain/detections/certstream.ts';
import { logsOfList, parseLogList } from '../../../shared/domain/detections/log-list.ts';
import {
  certificatesOfDataTile,
  parseCheckpoint,
  staticLogReader,
  tilePath,
} from '../../../shared/domain/detections/static-ct.ts';
import { logEntry } from '../../fixtures/certificates.ts';

const dir = mkdtempSync(join(tmpdir(), 'static-ct-unit-'));
const LOG_ENTRIES = Array.from({ length: 300 }, (_, i) => logEntry([`shop${i}.example`], i + 1, i % 4 === 0));
writeStaticLog(dir, LOG_ENTRIES);

/** How the loopback log sends a file: gzip with the header, gzip without it, or as stored. */
let encoding: 'header' | 'silent' | 'identity' = 'identity';
const requests: { url: string; acceptEncoding: string | undefined }[] = [];
let listBody = '';
const server = createServer((request, response) => {
  const url = request.url ?? '';
  requests.push({ url, acceptEncoding: request.headers['accept-encoding'] });
  if (url === '/list.json') {
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(listBody);
    return;
  }
  let body: Buffer;
  try {
    body = readFileSync(join(dir, url.replace(/^\/log\//, '')));
  } catch {
    response.writeHead(404).end();
    return;
  }
  const plain = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body;
  if (encoding === 'identity') response.writeHead(200).end(plain);
  else if (encoding === 'silent') response.writeHead(200).end(gzipSync(plain));
  else response.writeHead(200, { 'Content-Encoding': 'gzip' }).end(gzipSync(plain));
});
await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
const { port } = server.address() as AddressInfo;
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
});
beforeEach(() => {
  requests.length = 0;
});
const LOCAL = { policy: { allowLoopback: true }, resolve: async () => ['127.0.0.1'] };
const LOG = `http://127.0.0.1:${port}/log/`;

const readAll = () =>
  staticLogReader(httpTileClient(LOCAL)).read(LOG, {
    from: undefined,
    replay: true,
    max: 1000,
    tiles: { left: 10 },
  });

describe('static-CT paths and checkpoints', () => {
  it('writes tile indexes in groups of three digits, all but the last prefixed x, and partial tiles with their width', () => {
    expect(tilePath('data', 0)).toBe('tile/data/000');
    expect(tilePath('data', 5, 17)).toBe('tile/data/005.p/17');
    expect(tilePath('names', 1000)).toBe('tile/names/x001/000');
    expect(tilePath('data', 1234067)).toBe('tile/data/x001/x234/067');
    expect(tilePath('data', 1234067, 255)).toBe('tile/data/x001/x234/067.p/255');
  });

  it('reads the origin, size and root hash of a checkpoint, and refuses one without them', () => {
    const text = readFileSync(join(dir, 'checkpoint'), 'utf8');

    const checkpoint = parseCheckpoint(text);

    expect(checkpoint.origin).toBe('ct.example.net/demo');
    expect(checkpoint.size).toBe(300);
    expect(checkpoint.rootHash).toHaveLength(32);
    expect(() => parseCheckpoint('ct.example.net/demo\n-1\nAAAA\n')).toThrow('malformed checkpoint');
    expect(() => parseCheckpoint('')).toThrow('malformed checkpoint');
  });
});

describe('static-CT tiles', () => {
  it('reads each entry of a data tile, and refuses one cut short or of an unknown entry type', () => {
    const tile = readFileSync(join(dir, 'tile/data/000'));
    const unknownType = Buffer.from(tile);
    unknownType[9] = 7;

    expect(certificatesOfDataTile(tile).map(namesOfCertificate)).toEqual(LOG_ENTRIES.slice(0, 256).map(namesOf));
    expect(() => certificatesOfDataTile(tile.subarray(0, tile.length - 1))).toThrow('truncated data tile');
    expect(() => certificatesOfDataTile(unknownType)).toThrow('unknown type 7');
  });
});

describe('a static-CT log over HTTP', () => {
  it.each([
    ['gzip-encoded with Content-Encoding', 'header'],
    ['gzip-encoded without saying so', 'silent'],
    ['not encoded', 'identity'],
  ] as const)('reads tiles sent %s, asking for gzip or identity', async (_, sent) => {
    encoding = sent;

    const { names, position } = await readAll();

    expect(names).toEqual(LOG_ENTRIES.map(namesOf));
    expect(position).toBe(300);
    expect(requests.map((request) => request.url)).toEqual([
      '/log/checkpoint',
      '/log/tile/names/000',
      '/log/tile/names/001.p/44',
    ]);
    expect(requests.every((request) => request.acceptEncoding === 'gzip, identity')).toBe(true);
  });

  it('refuses a log at a loopback address where the stage allows none, sending nothing', async () => {
    const aws = { policy: { allowLoopback: false }, resolve: async () => ['127.0.0.1'] };

    const checkpoint = httpTileClient(aws).checkpoint(`https://127.0.0.1:${port}/log/`);
    const tile = httpTileClient(aws).tile(`https://ct.example.net:${port}/log/`, 'tile/data/000');

    await expect(checkpoint).rejects.toThrow('127.0.0.1');
    await expect(tile).rejects.toThrow('127.0.0.1');
    expect(requests).toEqual([]);
  });

  it('fails a read whose data tile the checkpoint promises but the log does not have', async () => {
    encoding = 'identity';
    const client = httpTileClient(LOCAL);
    const missing = { checkpoint: client.checkpoint, tile: async () => undefined };

    await expect(
      staticLogReader(missing).read(LOG, { from: undefined, replay: true, max: 10, tiles: { left: 10 } }),
    ).rejects.toThrow('no data tile tile/data/000');
  });
});

const day = 86_400_000;
const NOW = Date.now();
const iso = (offset: number) => new Date(NOW + offset).toISOString();
const LIST = {
  version: '7.1',
  log_list_timestamp: iso(0),
  operators: [
    {
      name: 'One',
      email: ['ct@one.example'],
      logs: [
        {
          url: 'https://one.example/now/',
          state: { usable: {} },
          temporal_interval: { start_inclusive: iso(-day), end_exclusive: iso(day) },
        },
        {
          url: 'https://one.example/past/',
          state: { usable: {} },
          temporal_interval: { start_inclusive: iso(-9 * day), end_exclusive: iso(-day) },
        },
        { url: 'https://one.example/readonly/', state: { readonly: {} } },
      ],
      tiled_logs: [
        {
          submission_url: 'https://one.example/submit/',
          monitoring_url: 'https://mon.one.example/',
          state: { qualified: {} },
        },
      ],
    },
    { name: 'Two', email: [], logs: [{ url: 'https://two.example/', state: { rejected: {} } }] },
  ],
};

describe('the log list', () => {
  it('names the usable and qualified logs of a v3 list whose shard holds now, RFC 6962 and tiled', () => {
    expect(logsOfList(parseLogList(LIST), NOW)).toEqual([
      'https://one.example/now/',
      { monitoringUrl: 'https://mon.one.example/', kind: 'static' },
    ]);
  });

  it('is refreshed from a URL once the answer is a v3 list, and left as it was when it is not', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'log-list-')), 'log-list.json');
    writeFileSync(file, '{"operators": []}\n');
    listBody = JSON.stringify(LIST);

    const message = await logListCommand(['refresh', `http://127.0.0.1:${port}/list.json`], LOCAL, file);
    const written = readFileSync(file, 'utf8');
    listBody = JSON.stringify({ operators: [{ name: 'Bad', logs: [{ url: 'http://plain.example/' }] }] });
    const refused = logListCommand(['refresh', `http://127.0.0.1:${port}/list.json`], LOCAL, file);

    expect(message).toBe(`Wrote ${file}: 4 RFC 6962 logs and 1 tiled logs`);
    expect(JSON.parse(written)).toEqual(LIST);
    await expect(refused).rejects.toThrow('Not a v3 log list: operators.0.logs.0.url');
    expect(readFileSync(file, 'utf8')).toBe(written);
  });

  it('is fetched under the egress policy: a loopback list URL is refused where loopback is not allowed', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'log-list-')), 'log-list.json');

    const refused = logListCommand(
      ['refresh', `https://127.0.0.1:${port}/list.json`],
      {
        policy: { allowLoopback: false },
        resolve: async () => ['127.0.0.1'],
      },
      file,
    );

    await expect(refused).rejects.toThrow('127.0.0.1');
    expect(requests).toEqual([]);
  });
});
