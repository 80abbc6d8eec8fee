import { manifestOf } from '../../shared/domain/taxii/index.ts';
import { collectionPageHandler, collectionPageRequest } from '../../shared/http/taxii-page.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { ...collectionPageRequest };
export const createHandler = collectionPageHandler(request, manifestOf);

export const handler = createHandler({
  keys: runtime.keys(),
  store: runtime.taxii(),
  cursors: runtime.cursors(),
  directory: runtime.directory(),
});
