/**
 * Jobs for the page pool's own tests, run in its workers: ones that leave a
 * failure behind them, one that throws, one that takes its time. Each answers
 * its worker's pid, so a test can tell whether a job ran in a fresh worker.
 */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export const pid = (): number => process.pid

export const slow = async (input: { readonly ms: number }): Promise<number> => {
  await sleep(input.ms)
  return process.pid
}

/** Answers at once, and throws from a timer `delayMs` later: a leftover of a finished job. */
export const leaveLateThrow = (input: { readonly delayMs: number }): number => {
  setTimeout(() => {
    throw new Error("a late failure of an earlier job")
  }, input.delayMs)
  return process.pid
}

/** Answers at once, and leaves a promise rejected `delayMs` later that nobody awaits. */
export const leaveLateRejection = (input: { readonly delayMs: number }): number => {
  void sleep(input.delayMs).then(() => Promise.reject(new Error("a late rejection of an earlier job")))
  return process.pid
}

export const throws = (): never => {
  throw new Error("the page made the parser throw")
}
