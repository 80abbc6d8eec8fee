import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeStaticLog } from '../../infra/local/write-static-log.ts';
import { detectionRepository } from '../../shared/db/detection-repository.ts';
import { recordedLogClient } from '../../shared/db/detection-sources.ts';
import { logListLogs, recordedTileClient } from '../../shared/db/static-ct-sources.ts';
import {
  type CertificateNamesOptions,
  certificateNames,
  type LogEntry,
  type LogRef,
  namesOf,
} from '../../shared/domain/detections/certstream.ts';
import { staticLogReader, type TileClient } from '../../shared/domain/detections/static-ct.ts';
import { logEntry } from '../fixtures/certificates.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('static-ct');
const store = detectionRepository(table.db, table.tableName);

const SHIPPED = resolve(import.meta.dirname, '../../infra/local/detections');
const LOG = 'https://static.example.net/2026h2/';
const RFC_LOG = 'https://rfc.example.net/log/';

/** Entries `from`..`to`-1 of a log: one name or two per certificate, every other one a precertificate. */
const entries = (from: number, to: number): LogEntry[] =>
  Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    const name = `site${i}.example`;
    return logEntry(i % 3 === 0 ? [name, `www.${name}`] : [name], i + 1, i % 2 === 1);
  });
const temp = () => mkdtempSync(join(tmpdir(), 'static-ct-'));

/** A tile client that records every path asked for, and can hide the names tiles (a log without the extension). */
const watched = (client: TileClient, { namesTiles = true } = {}) => {
  const paths: string[] = [];
  const tiles: TileClient = {
    checkpoint: (log) => client.checkpoint(log),
    tile: async (log, path) => {
      paths.push(path);
      return !namesTiles && path.startsWith('tile/names/') ? undefined : client.tile(log, path);
    },
  };
  return { paths, tiles };
};

/** Every entry's names, in log order, read from the start. */
const allNames = async (tiles: TileClient) =>
  (await staticLogReader(tiles).read(LOG, { from: undefined, replay: true, max: 1_000_000, tiles: { left: 100 } }))
    .names;

/** One CERTSTREAM run of config 1 as the pipeline runs it: from the positions in the table, and back into it. */
let configId = 0;
const runner = (options: CertificateNamesOptions, client = recordedLogClient('/dev/null')) => {
  const id = ++configId;
  const reader = certificateNames(client, options);
  return async (logs: readonly LogRef[] | undefined, max = 1_000_000) => {
    const { names, positions } = await reader.read(logs, (log) => store.position('acme', id, log), max);
    for (const [log, position] of Object.entries(positions)) await store.setPosition('acme', id, log, position);
    return { names, positions };
  };
};
const flat = (list: readonly LogEntry[]) => list.flatMap(namesOf);

describe('a static-CT log read through its tiles', () => {
  it('names every entry of the shipped static log as get-entries names the same certificates of ct-sample.json', async () => {
    const sample = (JSON.parse(readFileSync(join(SHIPPED, 'ct-sample.json'), 'utf8')) as { entries: LogEntry[] })
      .entries;
    const shipped = recordedTileClient(join(SHIPPED, 'static-log'));

    const fromNames = await allNames(shipped);
    const fromData = await allNames(watched(shipped, { namesTiles: false }).tiles);

    expect(sample.some((entry) => Buffer.from(entry.leaf_input, 'base64')[11] === 1)).toBe(true);
    expect(fromData).toEqual(sample.map(namesOf));
    expect(fromNames).toEqual(fromData);
  });

  it('reads certificates and precertificates to the names get-entries gives for the same certificates', async () => {
    const dir = temp();
    const log = entries(0, 600);
    writeStaticLog(dir, log, { namesTiles: false });
    writeFileSync(join(dir, 'rfc.json'), JSON.stringify({ entries: log }));

    const viaTiles = await runner({ replay: true, tiles: recordedTileClient(dir) })([
      { monitoringUrl: LOG, kind: 'static' },
    ]);
    const viaEntries = await runner({ replay: true }, recordedLogClient(join(dir, 'rfc.json')))([RFC_LOG]);

    expect(viaTiles.names).toHaveLength(800);
    expect(viaTiles.names).toEqual(viaEntries.names);
    expect(viaTiles.positions).toEqual({ [LOG]: 600 });
  });

  it('gives the same names from names tiles as from data tiles, probing for names tiles once per log', async () => {
    const dir = temp();
    writeStaticLog(dir, entries(0, 700));
    const withNames = watched(recordedTileClient(dir));
    const without = watched(recordedTileClient(dir), { namesTiles: false });

    const fromNames = await allNames(withNames.tiles);
    const fromData = await allNames(without.tiles);

    expect(fromNames).toEqual(entries(0, 700).map(namesOf));
    expect(fromData).toEqual(fromNames);
    expect(withNames.paths).toEqual(['tile/names/000', 'tile/names/001', 'tile/names/002.p/188']);
    expect(without.paths).toEqual(['tile/names/000', 'tile/data/000', 'tile/data/001', 'tile/data/002.p/188']);
  });

  it('reads a partial tile to its width, and the full tile once the partial one is gone', async () => {
    const small = temp();
    writeStaticLog(small, entries(0, 300), { namesTiles: false });
    const grown = temp();
    writeStaticLog(grown, entries(0, 512), { namesTiles: false });
    // The log has grown to two full tiles since the checkpoint of size 300 was read, and dropped the partial tile.
    copyFileSync(join(small, 'checkpoint'), join(grown, 'checkpoint'));
    const partial = watched(recordedTileClient(small), { namesTiles: false });
    const fallback = watched(recordedTileClient(grown), { namesTiles: false });

    const fromPartial = await allNames(partial.tiles);
    const fromFull = await allNames(fallback.tiles);

    expect(fromPartial).toEqual(entries(0, 300).map(namesOf));
    expect(partial.paths.filter((path) => path.startsWith('tile/data/'))).toEqual([
      'tile/data/000',
      'tile/data/001.p/44',
    ]);
    expect(fromFull).toEqual(fromPartial);
    expect(fallback.paths.filter((path) => path.startsWith('tile/data/'))).toEqual([
      'tile/data/000',
      'tile/data/001.p/44',
      'tile/data/001',
    ]);
  });

  it('reads a log that grew between runs from the stored position: nothing read twice, nothing skipped', async () => {
    const dir = temp();
    const run = runner({ tiles: recordedTileClient(dir) });
    const logs = [{ monitoringUrl: LOG, kind: 'static' as const }];
    writeStaticLog(dir, entries(0, 100));

    const first = await run(logs);
    writeStaticLog(dir, entries(0, 300));
    const second = await run(logs);
    writeStaticLog(dir, entries(0, 700));
    const third = await run(logs, 250);
    const fourth = await run(logs, 250);
    const fifth = await run(logs, 250);

    expect(first.names).toEqual([]);
    expect([...second.names, ...third.names, ...fourth.names]).toEqual(flat(entries(100, 700)));
    expect([first, second, third, fourth].map((read) => read.positions[LOG])).toEqual([100, 300, 550, 700]);
    expect(fifth.names).toEqual([]);
    expect(await store.position('acme', configId, LOG)).toBe(700);
  });

  it('stops at the run’s tile cap and goes on from there on the next run', async () => {
    const dir = temp();
    writeStaticLog(dir, entries(0, 700));
    const run = runner({ replay: true, tiles: recordedTileClient(dir), maxTiles: 2 });
    const logs = [{ monitoringUrl: LOG, kind: 'static' as const }];

    const first = await run(logs);
    const second = await run(logs);

    expect(first.positions[LOG]).toBe(512);
    expect(second.positions[LOG]).toBe(700);
    expect([...first.names, ...second.names]).toEqual(flat(entries(0, 700)));
  });

  it('reads the log list’s current RFC 6962 and tiled logs when a config names none', async () => {
    const dir = temp();
    writeStaticLog(dir, entries(1000, 1300));
    writeFileSync(join(dir, 'rfc.json'), JSON.stringify({ entries: entries(0, 40) }));
    const now = Date.now();
    const day = 86_400_000;
    const current = {
      start_inclusive: new Date(now - 90 * day).toISOString(),
      end_exclusive: new Date(now + 90 * day).toISOString(),
    };
    const ended = {
      start_inclusive: new Date(now - 400 * day).toISOString(),
      end_exclusive: new Date(now - day).toISOString(),
    };
    const usable = { usable: { timestamp: new Date(now - 100 * day).toISOString() } };
    const list = {
      version: '1',
      operators: [
        {
          name: 'RFC operator',
          logs: [
            { url: RFC_LOG, state: usable, temporal_interval: current },
            { url: 'https://old.example.net/', state: usable, temporal_interval: ended },
            { url: 'https://retired.example.net/', state: { retired: { timestamp: current.start_inclusive } } },
          ],
        },
        {
          name: 'Tiled operator',
          tiled_logs: [
            { submission_url: 'https://submit.example.net/', monitoring_url: LOG, state: { qualified: {} } },
          ],
        },
      ],
    };
    writeFileSync(join(dir, 'log-list.json'), JSON.stringify(list));
    const run = runner(
      { replay: true, tiles: recordedTileClient(dir), defaultLogs: logListLogs(join(dir, 'log-list.json'), () => now) },
      recordedLogClient(join(dir, 'rfc.json')),
    );

    const first = await run(undefined);
    const second = await run(undefined);

    expect(first.names).toEqual([...flat(entries(0, 40)), ...flat(entries(1000, 1300))]);
    expect(first.positions).toEqual({ [RFC_LOG]: 40, [LOG]: 300 });
    expect(second.names).toEqual([]);
  });
});
