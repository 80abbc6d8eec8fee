import type * as v from 'valibot';

/** What a response of one status is: a JSON body, an error with the case that causes it, or another media type. */
export type ResponseDoc =
  | { description: string; body: v.GenericSchema; example?: unknown; headers?: Record<string, string> }
  | { description: string; error: true }
  | { description: string; mediaType: string };

export type OperationDoc = {
  summary: string;
  description: string;
  tag:
    | 'Metrics'
    | 'Assets'
    | 'Asset groups'
    | 'Asset check'
    | 'Threat lifecycle'
    | 'Description and pages'
    | 'Insights'
    | 'Account'
    | 'Webhooks'
    | 'Detections'
    | 'TAXII';
  /** The success response and the errors particular to the route; the generator adds those every keyed route answers. */
  responses: Record<number, ResponseDoc>;
  requestExample?: unknown;
  /** The body of every error of the route, when it is not this API's error body (TAXII's error resource). */
  errorBody?: v.GenericSchema;
};
