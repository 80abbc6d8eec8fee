import fc from 'fast-check';

/**
 * Every property test runs from one seed, so a run is repeatable: `FC_SEED=<n> npm test` replays
 * another one. fast-check names the seed (and the path to the counterexample) in every failure.
 */
const seed = Number(process.env.FC_SEED ?? 20_260_101);
if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${process.env.FC_SEED}`);
fc.configureGlobal({ seed });
