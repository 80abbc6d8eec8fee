/**
 * Functions write one JSON line per log entry and per metric record (EMF), as in Lambda. In a
 * terminal the local runtime shows them one readable line each; piped, they stay JSON.
 */
const BOILERPLATE = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'xray_trace_id',
]);

const COLORS: Record<string, string> = { ERROR: '31', CRITICAL: '31', WARN: '33', INFO: '36', DEBUG: '90' };

const fields = (entries: [string, unknown][]) =>
  entries.map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(' ');

type EmfRecord = {
  _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
};

/** The readable form of one line, or the line itself when it is not a log entry or a metric record. */
export const prettyLine = (line: string): string => {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (typeof entry !== 'object' || entry === null) return line;
  if ('_aws' in entry) {
    const [definition] = (entry as EmfRecord)._aws.CloudWatchMetrics;
    const dimensions = [...new Set(definition?.Dimensions.flat())].filter((name) => name !== 'service');
    const values = (definition?.Metrics ?? []).map(({ Name, Unit }) => {
      const unit = Unit === 'Milliseconds' ? 'ms' : Unit === 'Seconds' ? 's' : '';
      return `${Name}=${JSON.stringify(entry[Name])}${unit}`;
    });
    return `\x1b[90m${'metric'.padEnd(21)}${fields(dimensions.map((name) => [name, entry[name]]))} ${values.join(' ')}\x1b[0m`;
  }
  if (typeof entry.level !== 'string' || typeof entry.message !== 'string') return line;
  const time = typeof entry.timestamp === 'string' ? entry.timestamp.slice(11, 23) : '';
  const level = `\x1b[${COLORS[entry.level] ?? '0'}m${entry.level.padEnd(5)}\x1b[0m`;
  const rest = Object.entries(entry).filter(([key]) => !BOILERPLATE.has(key));
  return `${time} ${level} ${entry.message} ${fields(rest)}`.trimEnd();
};

/** Rewrites whole JSON lines written to stdout and stderr into their readable form. */
export const prettyLogs = (): void => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: string) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'string' || !chunk.startsWith('{'))
        return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
      const lines = chunk.split('\n').map((line) => (line.startsWith('{') ? prettyLine(line) : line));
      return write(lines.join('\n'));
    }) as typeof stream.write;
  }
};
