import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../../infra/routes.ts';
import { KNOWN_DIVERGENCES, openApiDocument } from '../../fixtures/contract.ts';

type Example = { value?: unknown };
type Media = { schema?: unknown; example?: unknown; examples?: Record<string, Example> };
type Parameter = { name: string; in: string; schema?: unknown; example?: unknown; examples?: Record<string, Example> };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(openApiDocument, 'document');
const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

type Sample = { where: string; schema: string; value: unknown; id?: string };

/** Every example of the description (single and named) with the JSON pointer of the schema it illustrates. */
const samplesOf = (document: { paths: Record<string, Record<string, Operation>> }): Sample[] =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) => {
      const at = (...parts: string[]) => pointer('paths', path, method, ...parts);
      const route = ROUTES.find((candidate) => candidate.path === path && candidate.method.toLowerCase() === method);
      const ofMedia = (media: Media, where: string, schema: string): Sample[] => [
        ...(media.example === undefined ? [] : [{ where, schema, value: media.example }]),
        ...Object.entries(media.examples ?? {}).map(([name, example]) => ({
          where: `${where} (${name})`,
          schema,
          value: example.value,
          id: `${route?.name}/${name}`,
        })),
      ];
      const parameters = (operation.parameters ?? []).flatMap((parameter, index) =>
        ofMedia(
          parameter,
          `${method.toUpperCase()} ${path} ${parameter.in} ${parameter.name}`,
          at('parameters', String(index), 'schema'),
        ),
      );
      const body = Object.entries(operation.requestBody?.content ?? {}).flatMap(([type, media]) =>
        ofMedia(media, `${method.toUpperCase()} ${path} request body`, at('requestBody', 'content', type, 'schema')),
      );
      const responses = Object.entries(operation.responses ?? {}).flatMap(([status, response]) =>
        Object.entries(response.content ?? {}).flatMap(([type, media]) =>
          media.schema === undefined
            ? []
            : ofMedia(
                media,
                `${method.toUpperCase()} ${path} → ${status}`,
                at('responses', status, 'content', type, 'schema'),
              ),
        ),
      );
      return [...parameters, ...body, ...responses];
    }),
  );

const SAMPLES = samplesOf(openApiDocument as never).filter(({ id }) => !(id && KNOWN_DIVERGENCES.has(id)));

describe('the examples of the committed description', () => {
  it('are many: every named example of infra/openapi/published-examples.ts is among them', () => {
    expect(SAMPLES.length).toBeGreaterThan(100);
  });

  it('each fit the schema of the parameter, body or response they illustrate', () => {
    const misfits = SAMPLES.flatMap(({ where, schema, value }) => {
      const validate = ajv.getSchema(`document#/${schema}`);
      if (!validate) return [`${where}: no schema at ${schema}`];
      return validate(value) ? [] : [`${where}: ${ajv.errorsText(validate.errors)}`];
    });

    expect(misfits).toEqual([]);
  });
});
