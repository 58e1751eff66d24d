import { PushService } from "@payments-gaming/domain/push"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { badRequest } from "../ApiErrors.ts"

export const PushHandlers = HttpApiBuilder.group(Api, "push", (handlers) =>
  Effect.gen(function* () {
    const push = yield* PushService
    return handlers.handle("pushDirect", ({ payload }) =>
      push
        .send(payload)
        .pipe(
          Effect.catchTag("PayloadTooLarge", (error) =>
            Effect.fail(
              badRequest("Notification too large", [
                { path: "body", message: `encoded payload is ${error.size} bytes; the limit is ${error.limit}` }
              ])
            )
          )
        )
    )
  })
)
