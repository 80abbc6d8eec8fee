import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config.ts';

/** One JSON line per entry on stdout (warnings and errors on stderr), in Lambda and locally alike. */
export const logger = new Logger({ serviceName: config.serviceName, logLevel: config.logLevel });

/** Tests and benchmarks turn log lines off; Lambda always logs at the configured level. */
export const silenceLogs = (on = true): void => {
  logger.setLogLevel(on ? 'SILENT' : config.logLevel);
};
