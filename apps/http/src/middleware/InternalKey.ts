import { InternalKeyVerifier } from "@payments-gaming/domain/auth"
import { Effect, Layer, Redacted } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Forbidden, forbidden } from "../ApiErrors.ts"

/** The `X-Internal-Key` check of the debug endpoints, compared in constant time by the verifier. */
export class InternalKey extends HttpApiMiddleware.Service<InternalKey>()("@payments-gaming/http/InternalKey", {
  security: { internalKey: HttpApiSecurity.apiKey({ key: "X-Internal-Key", in: "header" }) },
  error: Forbidden
}) {}

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
