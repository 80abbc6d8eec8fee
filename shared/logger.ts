import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config.ts';

/**
 * One JSON line per entry on stdout (warnings and errors on stderr), in Lambda and locally alike.
 * The level is fixed when the module loads: the Powertools middleware restores it at every
 * invocation, so tests and benchmarks set `LOG_LEVEL=SILENT` rather than change it later.
 */
export const logger = new Logger({ serviceName: config.serviceName, logLevel: config.logLevel });
