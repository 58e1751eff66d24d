import { forbidden } from "@payments-gaming/api/ApiErrors"
import { CurrentUser } from "@payments-gaming/api/middleware/CurrentUser"
import { RequireAdmin } from "@payments-gaming/api/middleware/RequireAdmin"
import { Effect, Layer } from "effect"

// Made once, not a generator per request (docs/architecture.md).
const adminOnly = Effect.fnUntraced(function* <A, E, R>(effect: Effect.Effect<A, E, R>) {
  const user = yield* CurrentUser
  if (!user.isAdmin) return yield* forbidden("This operation needs the admin role")
  return yield* effect
})

export const layer = Layer.succeed(RequireAdmin, adminOnly)
