import { InternalKeyVerifier } from "@payments-gaming/domain/auth"
import { Effect, Layer, Redacted } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Forbidden, forbidden } from "../ApiErrors.ts"
import { Header } from "../Paths.ts"

const internalKey = HttpApiSecurity.apiKey({ key: Header.internalKey, in: "header" }).pipe(
  HttpApiSecurity.annotateMerge(
    OpenApi.annotations({
      description: "INTERNAL_API_KEY (in development: `INTERNAL_API_KEY` in DATA_DIR/dev-secrets.json)."
    })
  )
)

/** The `X-Internal-Key` check of the debug endpoints, compared in constant time by the verifier. */
export class InternalKey extends HttpApiMiddleware.Service<InternalKey>()("@payments-gaming/http/InternalKey", {
  security: { internalKey },
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
