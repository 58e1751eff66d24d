import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { unauthorized } from "@payments-gaming/api/ApiErrors"
import { Authentication } from "@payments-gaming/api/middleware/Authentication"
import { CurrentUser } from "@payments-gaming/api/middleware/CurrentUser"
import { TokenVerifier } from "@payments-gaming/domain/auth"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { RateLimit } from "./RateLimit.ts"

/**
 * How many Authorization fields the request carried. Node keeps only the first in `headers`; a
 * proxy in front may keep another, so two fields would let the two disagree on who is calling.
 */
const authorizationFields = (request: HttpServerRequest.HttpServerRequest) => {
  const raw = NodeHttpServerRequest.toIncomingMessage(request).rawHeaders
  let count = 0
  for (let at = 0; at < raw.length; at += 2) if (raw[at]?.toLowerCase() === "authorization") count++
  return count
}

export const layer = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const verifier = yield* TokenVerifier
    const rateLimit = yield* RateLimit
    return {
      // Plain steps rather than a generator: this runs on every authenticated request (issue 16).
      bearer: (effect, { credential }) => {
        if (Redacted.value(credential).length === 0) return Effect.fail(unauthorized("Missing bearer token"))
        return Effect.withFiber((fiber) => {
          if (authorizationFields(Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)) > 1) {
            return Effect.fail(unauthorized("More than one Authorization header: send exactly one"))
          }
          return verifier.verify(credential).pipe(
            Effect.mapError((error) => unauthorized(`Invalid bearer token: ${error.reason}`)),
            // Per user: the verified `sub` is known only here, and every authenticated endpoint passes here.
            Effect.flatMap((principal) =>
              rateLimit.perUser(principal.userId, Effect.provideService(effect, CurrentUser, principal))
            )
          )
        })
      }
    }
  })
)
