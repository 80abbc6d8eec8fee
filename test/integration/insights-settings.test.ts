import { describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { parseFixture } from '../../infra/local/fixture.ts';
import { profileRepository, settingsRepository } from '../../shared/db/account-repository.ts';
import { effectiveSettings } from '../../shared/domain/account/organization-settings.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('insights-settings');
const settings = settingsRepository(table.db, table.tableName);
const profiles = profileRepository(table.db, table.tableName);
const admin = (...words: string[]) => runAdminCommand(table.db, table.tableName, words, {});

describe('organization settings and user profiles from fixtures', () => {
  it('stores an organization’s contact, services and thresholds, and a user’s profile, again unchanged on a reload', async () => {
    const fixture = {
      organizations: [
        {
          slug: 'acme',
          name: 'Acme',
          contactUrl: 'https://t.me/acme_support',
          services: { takedowns: { active: true, automated: true } },
          healthcheckThresholds: { 'reviewing.backlog': { warn: 5, fail: 10 } },
        },
      ],
      users: [{ id: 'u-1', email: 'ana@acme.example', fullName: 'Ana Lima' }],
    };

    await seed(table.db, table.tableName, fixture);
    await seed(table.db, table.tableName, fixture);
    const stored = effectiveSettings(await settings.find('acme'));

    expect(stored.contactUrl).toBe('https://t.me/acme_support');
    expect(stored.services.takedowns).toEqual({ active: true, automated: true, automationOffSince: null });
    expect(stored.thresholds['reviewing.backlog']).toEqual({ warn: 5, fail: 10 });
    expect(stored.thresholds['takedowns.automation-off']).toEqual({ warn: 30, fail: 60 });
    expect(await profiles.find('u-1')).toEqual({ email: 'ana@acme.example', fullName: 'Ana Lima', avatarUrl: null });
  });

  it('rejects a fixture whose thresholds warn above where they fail, or name an unknown check', () => {
    const withThresholds = (healthcheckThresholds: unknown) =>
      parseFixture({ organizations: [{ slug: 'acme', name: 'Acme', healthcheckThresholds }] });

    expect(() => withThresholds({ 'reviewing.backlog': { warn: 10, fail: 5 } })).toThrow(/warn must not be above fail/);
    expect(() => withThresholds({ 'reviewing.speed': { warn: 1, fail: 2 } })).toThrow(/healthcheck must be one of/);
  });
});

describe('npm run admin -- org threshold / org settings / user profile', () => {
  it('overrides one check’s levels, then returns it to the stage defaults', async () => {
    await admin('org', 'create', 'globex');

    const set = await admin('org', 'threshold', 'globex', 'takedowns.todo-volume', '2', '4');
    const overridden = effectiveSettings(await settings.find('globex')).thresholds['takedowns.todo-volume'];
    const reset = await admin('org', 'threshold', 'globex', 'takedowns.todo-volume', 'default');
    const restored = effectiveSettings(await settings.find('globex')).thresholds['takedowns.todo-volume'];

    expect(set).toBe('takedowns.todo-volume of globex: warn at 2, fail at 4');
    expect(overridden).toEqual({ warn: 2, fail: 4 });
    expect(reset).toBe('takedowns.todo-volume of globex follows the stage defaults');
    expect(restored).toEqual({ warn: 25, fail: 100 });
  });

  it('refuses levels that are not numbers, warn above fail, an unknown check or organization', async () => {
    await admin('org', 'create', 'initech');

    await expect(admin('org', 'threshold', 'initech', 'takedowns.todo-volume', 'many', '4')).rejects.toThrow(
      /warn must be a number/,
    );
    await expect(admin('org', 'threshold', 'initech', 'takedowns.todo-volume', '5', '4')).rejects.toThrow(
      /warn must not be above fail/,
    );
    await expect(admin('org', 'threshold', 'initech', 'takedowns.speed', '1', '2')).rejects.toThrow(
      /Unknown healthcheck/,
    );
    await expect(admin('org', 'threshold', 'nobody', 'takedowns.todo-volume', '1', '2')).rejects.toThrow(
      /does not exist/,
    );
  });

  it('merges settings and sets a profile', async () => {
    await admin('org', 'create', 'umbrella');

    await admin('org', 'settings', 'umbrella', '{"contactUrl":"https://umbrella.example/contact"}');
    await admin('org', 'settings', 'umbrella', '{"services":{"detection":{"active":true}}}');
    await admin('user', 'profile', 'u-9', '{"fullName":"Bo Chen","email":"bo@umbrella.example"}');
    const stored = effectiveSettings(await settings.find('umbrella'));

    expect(stored.contactUrl).toBe('https://umbrella.example/contact');
    expect(stored.services.detection).toBe(true);
    expect(await profiles.find('u-9')).toEqual({ email: 'bo@umbrella.example', fullName: 'Bo Chen', avatarUrl: null });
  });
});
