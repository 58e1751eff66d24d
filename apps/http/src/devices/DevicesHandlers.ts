import { Api } from "@payments-gaming/api/Api"
import { conflict, notFound } from "@payments-gaming/api/ApiErrors"
import { CurrentUser } from "@payments-gaming/api/middleware/CurrentUser"
import { Devices, DeviceView, registrationOf } from "@payments-gaming/domain/devices"
import { Effect, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ok, respond } from "../Respond.ts"

// `respond` writes the body as it is given, so the view is encoded first (`createdAt` as text).
const encodeView = Schema.encodeSync(DeviceView)

export const DevicesHandlers = HttpApiBuilder.group(Api, "devices", (handlers) =>
  Effect.gen(function* () {
    const devices = yield* Devices
    return handlers
      .handle(
        "register",
        Effect.fnUntraced(function* ({ payload }) {
          const user = yield* CurrentUser
          const { device, created } = yield* devices
            .register(user.userId, registrationOf(payload))
            .pipe(Effect.catchTag("DeviceLimitReached", (error) => Effect.fail(conflict(error.message))))
          const message = created ? "Device registered" : "Device already registered"
          return respond(yield* ok(message, encodeView(device), created ? 201 : 200))
        })
      )
      .handle(
        "list",
        Effect.fnUntraced(function* () {
          const user = yield* CurrentUser
          return yield* ok("Devices fetched", yield* devices.list(user.userId))
        })
      )
      .handle(
        "remove",
        Effect.fnUntraced(function* ({ params }) {
          const user = yield* CurrentUser
          yield* devices
            .remove(user.userId, params.deviceId)
            .pipe(Effect.catchTag("DeviceNotFound", (error) => Effect.fail(notFound(error.message))))
          return yield* ok("Device removed", null)
        })
      )
  })
)
