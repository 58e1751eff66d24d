/**
 * How hard the fuzz tests push. The default profile runs in every `npm test` and must stay short;
 * `FUZZ_LONG=1` multiplies every case count by 20. The seed is fixed unless `FUZZ_SEED` says
 * otherwise, so a failure seen once is seen again with the same seed.
 */
export const DEFAULT_SEED = 20_260_521

const parseSeed = (text: string | undefined): number => {
  if (text === undefined || text.trim() === "") return DEFAULT_SEED
  const seed = Number(text)
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${JSON.stringify(text)}`)
  return seed
}

const long = process.env.FUZZ_LONG === "1"

export const FuzzProfile = {
  long,
  seed: parseSeed(process.env.FUZZ_SEED),
  /** The number of cases of one kind in this profile. */
  cases: (short: number) => (long ? short * 20 : short),
  describe(): string {
    return `profile ${long ? "long (FUZZ_LONG=1)" : "short"}, seed ${this.seed} (set FUZZ_SEED to change it)`
  }
}
