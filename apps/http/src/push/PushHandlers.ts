import { Api } from "@payments-gaming/api/Api"
import { badRequest } from "@payments-gaming/api/ApiErrors"
import { PushService } from "@payments-gaming/domain/push"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

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
