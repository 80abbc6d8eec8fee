import { refreshLogList, SHIPPED_CT_LOG_LIST } from '../../shared/db/static-ct-sources.ts';
import type { Egress } from '../../shared/egress/index.ts';

export const LOG_LIST_USAGE = `  detections log-list refresh <url>    replace the CT log list CERTSTREAM configs without logs read
                                       (${SHIPPED_CT_LOG_LIST}) with the v3 log list at <url>,
                                       e.g. https://www.gstatic.com/ct/log_list/v3/log_list.json; it needs no table`;

/** `detections log-list refresh <url>`: the operator's update of the shipped log list, fetched under the egress policy. */
export const logListCommand = async (
  args: readonly string[],
  egress: Egress,
  file: string = SHIPPED_CT_LOG_LIST,
): Promise<string> => {
  const [action, url] = args;
  if (action !== 'refresh' || url === undefined || args.length !== 2) {
    throw new Error('Usage: detections log-list refresh <url>');
  }
  const { logs, tiled } = await refreshLogList(url, file, egress);
  return `Wrote ${file}: ${logs} RFC 6962 logs and ${tiled} tiled logs`;
};
