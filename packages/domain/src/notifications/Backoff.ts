/** How retries of one notification are spread out. */
export interface BackoffPolicy {
  /** The delay before the second attempt, before jitter. */
  readonly baseMillis: number
  /** No delay is longer than this, before jitter. */
  readonly capMillis: number
  /** Attempts in all; after the last one fails retryably the row is parked as `failed`. */
  readonly maxAttempts: number
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMillis: 2_000, capMillis: 10 * 60_000, maxAttempts: 8 }

/**
 * The delay after attempt number `attempt` (1 for the first) failed retryably: the base doubled per
 * attempt, capped, then "equal jitter": half of it fixed, half drawn from `random` (a number in
 * [0, 1)). The fixed half keeps a retry from coming back at once; the drawn half keeps the devices
 * of one outage from all retrying in the same instant, against one recovering provider.
 */
export const retryDelayMillis = (policy: BackoffPolicy, attempt: number, random: number): number => {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30)
  const ceiling = Math.min(policy.capMillis, policy.baseMillis * 2 ** exponent)
  const half = ceiling / 2
  return Math.round(half + half * Math.min(Math.max(random, 0), 1))
}
