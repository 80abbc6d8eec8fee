type Level = 'info' | 'warn' | 'error';

const describe = (value: unknown): unknown =>
  value instanceof Error
    ? { name: value.name, message: value.message, stack: value.stack, cause: describe(value.cause) }
    : value;

let silent = false;
/** Tests and benchmarks turn log lines off; Lambda always logs. */
export const silenceLogs = (on = true): void => {
  silent = on;
};

const write = (level: Level, message: string, fields: Record<string, unknown>): void => {
  if (silent) return;
  const entries = Object.entries(fields).map(([key, value]) => [key, describe(value)]);
  const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...Object.fromEntries(entries) });
  if (level === 'info') console.log(line);
  else console.error(line);
};

export const logger = {
  info: (message: string, fields: Record<string, unknown> = {}) => write('info', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('warn', message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write('error', message, fields),
};
