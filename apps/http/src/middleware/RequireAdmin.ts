import { forbidden } from "@payments-gaming/api/ApiErrors"
import { CurrentUser } from "@payments-gaming/api/middleware/CurrentUser"
import { RequireAdmin } from "@payments-gaming/api/middleware/RequireAdmin"
import { Effect, Layer } from "effect"

export const layer = Layer.succeed(RequireAdmin, (effect) =>
  Effect.gen(function* () {
    const user = yield* CurrentUser
    if (!user.isAdmin) return yield* forbidden("This operation needs the admin role")
    return yield* effect
  })
)
