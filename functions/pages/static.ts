import * as v from 'valibot';
import { NotFoundError } from '../../shared/errors.ts';
import { publicHandler } from '../../shared/http/api-handler.ts';
import { fileResponse, staticFile } from '../../shared/http/static-files.ts';
import { STATIC_FILES } from './files.ts';

type Name = keyof typeof STATIC_FILES;
const names = Object.keys(STATIC_FILES) as Name[];
export const request = { pathParameters: v.object({ file: v.picklist(names, 'No such file') }) };

const files = Object.fromEntries(names.map((name) => [name, staticFile(STATIC_FILES[name])])) as Record<
  Name,
  ReturnType<typeof staticFile>
>;

/** The scripts and styles of the pages; any other name is 404. */
export const handler = publicHandler(async (event) => {
  const parsed = v.safeParse(request.pathParameters, event.pathParameters);
  if (!parsed.success) throw new NotFoundError('No such file');
  return fileResponse(files[parsed.output.file](), event.headers, { 'cache-control': 'public, max-age=3600' });
});
