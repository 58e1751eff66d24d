import { Cause, Effect, Layer, Ref } from "effect"
import { SealService } from "./SealService.ts"
import { SealSettings } from "./SealSettings.ts"

/**
 * The background sealer every instance runs for as long as its scope: every `interval`, seal what
 * has committed since (SealService.sealPending; another instance sealing at that moment makes this
 * round a no-op). A seal is logged at debug; a failing round (the database is down) as one warning,
 * and once more when sealing works again, rather than at every round of an outage.
 */
export const layer: Layer.Layer<never, never, SealService | SealSettings> = Layer.effectDiscard(
  Effect.gen(function* () {
    const settings = yield* SealSettings
    if (!settings.enabled) {
      yield* Effect.logInfo("Ledger sealer off (LEDGER_SEALER)")
      return
    }
    const service = yield* SealService
    const failing = yield* Ref.make(false)

    const round = service.sealPending.pipe(
      Effect.tap((seals) =>
        Effect.forEach(seals, (seal) =>
          Effect.logDebug("Ledger sealed").pipe(
            Effect.annotateLogs({ sequence: seal.sequence, transactions: seal.transactions, hash: seal.hash })
          )
        )
      ),
      Effect.tap(() =>
        Effect.flatMap(Ref.getAndSet(failing, false), (was) =>
          was ? Effect.logInfo("Ledger sealing works again") : Effect.void
        )
      ),
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.flatMap(Ref.getAndSet(failing, true), (was) =>
              was
                ? Effect.void
                : Effect.logWarning("Ledger sealing failed; retrying at every interval").pipe(
                    Effect.annotateLogs({ cause: Cause.pretty(cause).split("\n")[0] })
                  )
            )
      )
    )

    yield* Effect.forkScoped(Effect.forever(Effect.andThen(round, Effect.sleep(settings.interval))))
    yield* Effect.logDebug("Ledger sealer started")
  })
)
