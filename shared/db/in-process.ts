/**
 * Work of the local runtime run in the same process once the request has answered
 * (`setImmediate`), so a submission never waits for it; `settled` resolves once everything started
 * so far has finished (what a test waits for before reading the table).
 */
export const inProcessRunner = () => {
  const running = new Set<Promise<void>>();
  return {
    start<T>(run: (work: T) => Promise<void>, work: T): void {
      const done = new Promise<void>((resolve) => {
        setImmediate(() => {
          run(work).finally(resolve);
        });
      });
      running.add(done);
      void done.finally(() => running.delete(done));
    },
    async settled(): Promise<void> {
      while (running.size > 0) await Promise.all(running);
    },
  };
};
