import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', ['json', { outputFile: '.test-results/vitest.json' }]],
    include: ['test/{unit,integration,e2e,infra}/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: {
      TABLE_NAME: 'unit-test-table',
      CURSOR_SECRET: 'test-cursor-secret',
      DEAD_LETTER_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/dead-letters',
      // Log and EMF lines would fill the test output; the tests of the logs and metrics turn them back on.
      LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      LISTS_DIR: 'infra/local/lists',
      AWS_REGION: 'us-east-1',
      // DynamoDB Local on a loaded CI machine can take seconds per call; the outage test sets the production budget.
      // The connection timeout also runs while a request waits for one of the client's 50 sockets,
      // which a burst of requests from one test process does; a Lambda container sends one at a time.
      STORE_CONNECTION_TIMEOUT_MS: '20000',
      STORE_ATTEMPT_TIMEOUT_MS: '20000',
      STORE_CALL_BUDGET_MS: '45000',
      // A request's deadline for all its calls; the local invocations' 29 s timeout bounds it in the end.
      STORE_REQUEST_BUDGET_MS: '60000',
      // The tests' stage: budgets no other test's bursts of one key reach; the rate-limit tests give keys their own.
      RATE_LIMITS: 'check=100000/100000,read=100000/100000,write=100000/100000,report=100000/100000',
      // Every test request comes from 127.0.0.1: the key-guessing tests give their resolver its own budget.
      KEY_GUESS_LIMIT: '100000/100000',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    },
  },
});
