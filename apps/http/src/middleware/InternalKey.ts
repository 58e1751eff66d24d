import { forbidden } from "@payments-gaming/api/ApiErrors"
import { InternalKey } from "@payments-gaming/api/middleware/InternalKey"
import { InternalKeyVerifier } from "@payments-gaming/domain/auth"
import { Effect, Layer, Redacted } from "effect"

export const layer = Layer.effect(
  InternalKey,
  Effect.gen(function* () {
    const verifier = yield* InternalKeyVerifier
    return {
      internalKey: (effect, { credential }) => {
        const presented = Redacted.value(credential)
        return verifier.verify(presented.length === 0 ? undefined : credential).pipe(
          Effect.mapError(() => forbidden("Missing or wrong X-Internal-Key")),
          Effect.andThen(effect)
        )
      }
    }
  })
)
