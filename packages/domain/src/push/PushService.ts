import { Clock, Context, DateTime, Effect, Layer } from "effect"
import { Digest } from "effect/crypto"
import { utf8Bytes } from "../text/Utf8Bytes.ts"
import type { PayloadTooLarge } from "./Errors.ts"
import { notificationOf, type PushContext, type PushMessage, type PushResult, tokenLast8 } from "./Model.ts"
import { checkPayloadSize } from "./PayloadSize.ts"
import { PushDeliveryLog } from "./PushDeliveryLog.ts"
import { PushGateways } from "./PushGateways.ts"

/** Sends one push straight to a device token and records the attempt. */
export class PushService extends Context.Service<
  PushService,
  {
    /**
     * `context` names the notification a push carries: its id goes as the collapse key, and into
     * the delivery log with the device and whether this send may repeat an earlier one.
     */
    readonly send: (message: PushMessage, context?: PushContext) => Effect.Effect<PushResult, PayloadTooLarge>
  }
>()("@payments-gaming/domain/push/PushService") {
  static readonly layerNoDeps = Layer.effect(
    PushService,
    Effect.gen(function* () {
      const gateways = yield* PushGateways
      const log = yield* PushDeliveryLog
      const digest = yield* Digest.Digest

      const send = Effect.fn("PushService.send")(function* (message: PushMessage, context?: PushContext) {
        yield* checkPayloadSize(message, message.tokenType)
        const gateway = gateways[message.tokenType]
        const startedAt = yield* Clock.currentTimeMillis
        const result = yield* gateway.send(message.token, notificationOf(message, context?.collapseKey))
        const finishedAt = yield* Clock.currentTimeMillis
        const tokenHash = yield* digest.digestHex(Digest.sha256, utf8Bytes(message.token))
        yield* log
          .record({
            tokenType: message.tokenType,
            tokenHash,
            tokenLast8: tokenLast8(message.token),
            provider: gateway.name,
            success: result.success,
            errorCode: result.errorCode,
            errorMessage: result.errorMessage,
            providerMessageId: result.providerMessageId,
            latencyMs: Math.max(0, Math.round(finishedAt - startedAt)),
            at: DateTime.makeUnsafe(startedAt),
            ...(context === undefined
              ? {}
              : {
                  notificationId: context.notificationId,
                  deviceId: context.deviceId,
                  collapseKey: context.collapseKey,
                  resend: context.resend
                })
          })
          .pipe(
            // The push has already left: failing now would hide the result (and a retry would send
            // it twice), so a lost record is logged loudly instead.
            Effect.catchTag("DeliveryNotRecorded", (error) =>
              Effect.logError("Push delivery attempt not recorded", error.cause)
            )
          )
        return result
      })

      return PushService.of({ send })
    })
  )

  /** Needs the gateways and the delivery log; hashes tokens with WebCrypto's SHA-256. */
  static readonly layer = PushService.layerNoDeps.pipe(Layer.provide(Digest.layerWebCrypto))
}
