import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** The address of the stage's own public report pages, as the client reached the API: `<scheme>://<host>/v2/reports/`. */
export const reportPageBase = (event: Pick<APIGatewayProxyEventV2, 'headers' | 'requestContext'>): string => {
  const scheme = event.headers['x-forwarded-proto'] === 'http' ? 'http' : 'https';
  return `${scheme}://${event.requestContext.domainName}/v2/reports/`;
};
