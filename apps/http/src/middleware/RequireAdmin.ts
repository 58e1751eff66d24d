import { Effect, Layer } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { Forbidden, forbidden } from "../ApiErrors.ts"
import { CurrentUser } from "./CurrentUser.ts"

/** Lets through only callers whose token carries the `admin` role. Runs after Authentication. */
export class RequireAdmin extends HttpApiMiddleware.Service<RequireAdmin, { requires: CurrentUser }>()(
  "@payments-gaming/http/RequireAdmin",
  { error: Forbidden }
) {}

export const layer = Layer.succeed(RequireAdmin, (effect) =>
  Effect.gen(function* () {
    const user = yield* CurrentUser
    if (!user.isAdmin) return yield* forbidden("This operation needs the admin role")
    return yield* effect
  })
)
