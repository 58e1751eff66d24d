import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { TokenVerifier } from "@payments-gaming/domain/auth"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Unauthorized, unauthorized } from "../ApiErrors.ts"
import { CurrentUser } from "./CurrentUser.ts"
import { RateLimit } from "./RateLimit.ts"

/**
 * The bearer scheme as OpenAPI documents it: `bearer` in lower case, as API tools compare it (Scalar
 * offered Username/Password for Effect's default `Bearer`), with `bearerFormat: JWT`. The header is
 * read case-insensitively whatever the spelling here (RFC 9110 §11.1).
 */
const bearerJwt = HttpApiSecurity.http({ scheme: "bearer" }).pipe(
  HttpApiSecurity.annotateMerge(
    OpenApi.annotations({
      format: "JWT",
      description:
        "A JWT: HS256 signed with AUTH_JWT_SECRET (`npm run cli -- token mint --sub <user> [--role admin]`), or verified against AUTH_JWKS_URL."
    })
  )
)

/** Bearer JWT authentication (CONTRACT §2): provides the CurrentUser to the endpoints it guards. */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentUser }>()(
  "@payments-gaming/http/Authentication",
  { security: { bearer: bearerJwt }, error: Unauthorized }
) {}

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
