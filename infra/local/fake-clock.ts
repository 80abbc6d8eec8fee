/**
 * `npm run test:clock-ahead` moves Node's clock with faketime (an `LD_PRELOAD` library). The JVM
 * of DynamoDB Local and Chromium do not start under it: they are spawned with `env` without it, and
 * keep the machine's clock (the browser is given Node's time through its own clock instead).
 */
export const withoutFakeClock = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'LD_PRELOAD' && !name.startsWith('FAKETIME')));

/** Whether this process runs under faketime. */
export const underFakeClock = (env: NodeJS.ProcessEnv = process.env): boolean => env.FAKETIME !== undefined;
