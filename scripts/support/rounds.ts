/**
 * The figures the peer benches report over their rounds. Each round runs
 * every contestant once, close together in time, so a ratio taken within a
 * round compares them under the same load of the machine; the best round
 * shows what each reaches when the machine is quietest.
 */

/** The middle value (the mean of the two middle ones when the count is even). */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The best round's figure: the highest, or the lowest where less is better (a latency). */
export const bestOf = <R>(
  rounds: ReadonlyArray<R>,
  figure: (round: R) => number,
  better: "higher" | "lower" = "higher"
): number => (better === "higher" ? Math.max : Math.min)(...rounds.map(figure))

/** The median over the rounds of `a / b`, each ratio taken within one round. */
export const pairedMedian = <R>(
  rounds: ReadonlyArray<R>,
  a: (round: R) => number,
  b: (round: R) => number
): number => median(rounds.map((round) => a(round) / b(round)))
