import { describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { detectionRepository } from '../../shared/db/detection-repository.ts';
import { DEFAULT_SETTINGS } from '../../shared/domain/detections/index.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('detection-settings');
const store = detectionRepository(table.db, table.tableName);
const admin = (...words: string[]) => runAdminCommand(table.db, table.tableName, words, {});
await seed(table.db, table.tableName, {
  organizations: [
    { slug: 'acme', name: 'Acme' },
    {
      slug: 'globex',
      name: 'Globex',
      detections: { autoReport: true, thresholds: { low: 0.2, medium: 0.5, high: 0.9 } },
    },
  ],
});

describe('npm run admin -- org detections', () => {
  it('shows the defaults, turns auto-reporting on, sets the thresholds, and keeps each change through the next', async () => {
    const shown = JSON.parse(await admin('org', 'detections', 'acme'));

    await admin('org', 'detections', 'acme', 'auto-report', 'on');
    await admin('org', 'detections', 'acme', 'thresholds', '0.25', '0.5', '0.8');

    expect(shown).toEqual(DEFAULT_SETTINGS);
    expect(await store.settings('acme')).toEqual({
      autoReport: true,
      thresholds: { low: 0.25, medium: 0.5, high: 0.8 },
    });
  });

  it('refuses thresholds out of order or out of [0, 1], an unknown organization and an unknown setting, changing nothing', async () => {
    const before = await store.settings('acme');

    await expect(admin('org', 'detections', 'acme', 'thresholds', '0.7', '0.5', '0.9')).rejects.toThrow(
      'Thresholds must be numbers from 0 to 1 with low ≤ medium ≤ high',
    );
    await expect(admin('org', 'detections', 'acme', 'thresholds', '0.1', '0.5', '1.5')).rejects.toThrow(/from 0 to 1/);
    await expect(admin('org', 'detections', 'initech', 'auto-report', 'on')).rejects.toThrow(
      'Organization initech does not exist',
    );
    await expect(admin('org', 'detections', 'acme', 'auto-report', 'maybe')).rejects.toThrow(/Usage/);
    expect(await store.settings('acme')).toEqual(before);
  });

  it('takes the settings of a fixture organization', async () => {
    expect(await store.settings('globex')).toEqual({
      autoReport: true,
      thresholds: { low: 0.2, medium: 0.5, high: 0.9 },
    });
  });
});
