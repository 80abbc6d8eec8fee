import createClient from 'openapi-fetch';
// Generated from the committed description by test/e2e/typed-client.test.ts, beside a copy of this module.
import type { paths } from './openapi-schema.ts';

/** A client of the API typed by its OpenAPI description, as an integrator builds one. */
export const apiClient = (baseUrl: string, apiKey: string) =>
  createClient<paths>({ baseUrl, headers: { 'X-API-KEY': apiKey } });

export type ApiClient = ReturnType<typeof apiClient>;

const failed = (status: number, error: { code: string; message: string }) =>
  new Error(`${status} ${error.code}: ${error.message}`);

/** The README's `curl … /organization/asset-groups`: the organization's groups, by name with their asset counts. */
export const listGroups = async (client: ApiClient): Promise<{ name: string; assetCount: number }[]> => {
  const { data, error, response } = await client.GET('/organization/asset-groups');
  if (error) throw failed(response.status, error);
  return data.groups.map(({ name, assetCount }) => ({ name, assetCount }));
};

/** The README's `curl … -d '{"content":…}' /asset/check`: the verdict and the source that decided it. */
export const checkContent = async (
  client: ApiClient,
  content: string,
): Promise<{ status: 'UNKNOWN' | 'ALLOWED' | 'BLOCKED'; source: string }> => {
  const { data, error, response } = await client.POST('/asset/check', { body: { content } });
  if (error) throw failed(response.status, error);
  return { status: data.status, source: data.source };
};
