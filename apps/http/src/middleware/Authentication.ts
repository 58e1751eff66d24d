import { TokenVerifier } from "@payments-gaming/domain/auth"
import { Effect, Layer, Redacted } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Unauthorized, unauthorized } from "../ApiErrors.ts"
import { CurrentUser } from "./CurrentUser.ts"
import { RateLimit } from "./RateLimit.ts"

/** Bearer JWT authentication (CONTRACT §2): provides the CurrentUser to the endpoints it guards. */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentUser }>()(
  "@payments-gaming/http/Authentication",
  { security: { bearer: HttpApiSecurity.bearer }, error: Unauthorized }
) {}

export const layer = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const verifier = yield* TokenVerifier
    const rateLimit = yield* RateLimit
    return {
      bearer: (effect, { credential }) =>
        Effect.gen(function* () {
          if (Redacted.value(credential).length === 0) {
            return yield* unauthorized("Missing bearer token")
          }
          const principal = yield* verifier
            .verify(credential)
            .pipe(Effect.mapError((error) => unauthorized(`Invalid bearer token: ${error.reason}`)))
          // Per user: the verified `sub` is known only here, and every authenticated endpoint passes here.
          return yield* rateLimit.perUser(principal.userId, Effect.provideService(effect, CurrentUser, principal))
        })
    }
  })
)
