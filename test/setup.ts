import { silenceLogs } from '../shared/logger.ts';

silenceLogs();
