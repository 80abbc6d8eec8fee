import { type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import { SOURCES, type Source } from './sources.ts';

export type CatalogueSource = Omit<Source, 'config'> & {
  /** The JSON Schema a config's `config` must satisfy, converted from the schema that validates it. */
  configSchema: JsonSchema;
};

/** The sources as `/detection/sources` answers them. */
export const SOURCE_CATALOGUE: readonly CatalogueSource[] = SOURCES.map(({ config, ...source }) => ({
  ...source,
  configSchema: toJsonSchema(config),
}));
