import { Cause, Effect } from "effect"
import { isDatabaseUnavailable } from "./DatabaseUnavailable.ts"

/** 100 ms, 200 ms, … 3.2 s: about 6 s of pauses in all, well inside a notification's lease (60 s by default). */
const PAUSES = [100, 200, 400, 800, 1_600, 3_200] as const

const unavailableOnly = (cause: Cause.Cause<unknown>): boolean =>
  !Cause.hasInterrupts(cause) &&
  cause.reasons.length > 0 &&
  cause.reasons.every(
    (reason) =>
      (Cause.isFailReason(reason) && isDatabaseUnavailable(reason.error)) ||
      (Cause.isDieReason(reason) && isDatabaseUnavailable(reason.defect))
  )

/**
 * An idempotent write that must not be lost to a dropped connection: run again, on a fresh
 * connection from the pool (which discards the dead one at the next checkout), while the database
 * is unavailable (a lost or refused connection, a lock or statement time-out), with a backoff,
 * a bounded number of times. As a credit's one statement is (`LedgerUnitOfWork.idempotent`), but
 * more patiently: what it records is a push that has already left, and giving up costs a resend.
 * Only for writes whose second run changes nothing when the first did commit.
 */
export const durably = <A, E, R>(write: Effect.Effect<A, E, R>, what: string): Effect.Effect<A, E, R> => {
  const attempt = (tried: number): Effect.Effect<A, E, R> =>
    Effect.catchCause(write, (cause) =>
      tried < PAUSES.length && unavailableOnly(cause)
        ? Effect.logInfo(`Database unavailable while recording ${what}; trying again on a fresh connection`).pipe(
            Effect.annotateLogs({ try: tried + 1, cause: Cause.pretty(cause).split("\n")[0] }),
            Effect.andThen(Effect.sleep(PAUSES[tried] ?? 0)),
            Effect.andThen(attempt(tried + 1))
          )
        : Effect.failCause(cause)
    )
  return attempt(0)
}
