import { type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { TWIN_KEY } from '../../shared/schema-twin.ts';

export type Json = Record<string, unknown>;

type Node = {
  type: string;
  kind: string;
  pipe?: readonly Node[];
  entries?: Record<string, Node>;
  wrapped?: Node;
  item?: Node;
  options?: readonly Node[];
  metadata?: Record<string, unknown>;
};

const twinOf = (action: Node): Json | undefined =>
  action.type === 'metadata' ? (action.metadata?.[TWIN_KEY] as Json | undefined) : undefined;

/** The part of a pipe that describes the input: everything before its first transform. */
const inputPart = (pipe: readonly Node[]): readonly Node[] => {
  const end = pipe.findIndex((item) => item.kind === 'transformation' && item.type !== 'trim');
  return end === -1 ? pipe : pipe.slice(0, end);
};

export type TwinReport = {
  /** Schemas whose checks the description takes from a JSON Schema twin. */
  twinned: { path: string; schema: v.GenericSchema; twin: Json }[];
  /** Where a check has no twin: the description would not say what it checks. */
  missing: string[];
};

/** Walks a request schema for `check` actions and their twins. */
export const findTwins = (schema: v.GenericSchema, path: string): TwinReport => {
  const report: TwinReport = { twinned: [], missing: [] };
  const visit = (node: Node, at: string): void => {
    if (node.pipe) {
      const part = inputPart(node.pipe);
      const twin = part.map(twinOf).find(Boolean);
      if (twin) report.twinned.push({ path: at, schema: node as unknown as v.GenericSchema, twin });
      else if (part.some((item) => item.type === 'check')) report.missing.push(at);
      for (const item of node.pipe.slice(1)) if (item.kind === 'schema') visit(item, at);
      visit(node.pipe[0] as Node, at);
      return;
    }
    for (const [key, entry] of Object.entries(node.entries ?? {})) visit(entry, `${at}.${key}`);
    for (const child of [node.wrapped, node.item, ...(node.options ?? [])]) if (child) visit(child, at);
  };
  visit(schema as unknown as Node, path);
  return report;
};

/**
 * The JSON Schema (2020-12, as OpenAPI 3.1 uses) of what a schema accepts as input. A `check`
 * is described by its pipe's twin (see `findTwins`); `trim` only widens what is accepted.
 */
export const toDocumentSchema = (schema: v.GenericSchema): Json => {
  const { $schema: _, ...converted } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'throw',
    ignoreActions: ['trim'],
    overrideAction: ({ valibotAction, jsonSchema }) => {
      if (valibotAction.type === 'check') return jsonSchema;
      const twin = twinOf(valibotAction as unknown as Node);
      if (!twin) return undefined;
      const { [TWIN_KEY]: __, ...rest } = jsonSchema as Json;
      return { ...rest, ...twin } as JsonSchema;
    },
  });
  return converted as Json;
};
