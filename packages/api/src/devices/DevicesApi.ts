import { DeviceId, DeviceView, MAX_ACTIVE_DEVICES, RegisterDeviceRequest } from "@payments-gaming/domain/devices"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { BadRequest, Conflict, NotFound } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { Authentication } from "../middleware/Authentication.ts"

export class DevicesApi extends HttpApiGroup.make("devices")
  .add(
    HttpApiEndpoint.put("register", "/", {
      payload: RegisterDeviceRequest,
      success: [Envelope(DeviceView).pipe(HttpApiSchema.status(201)), Envelope(DeviceView)],
      error: [BadRequest, Conflict]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Register the caller's device for push notifications (201 new, 200 the same again)",
        description:
          "`token` must have its provider's shape (an FCM registration token; an APNs device token in hex, stored " +
          "lowercase). A token belongs to one user: registering one another user holds moves it to the caller. A " +
          "removed or deactivated token registered again is active again (201). A user holds at most " +
          `${MAX_ACTIVE_DEVICES} active devices: a registration that would add one more (new, moved or reactivated) ` +
          "is a 409 until one is removed; the same token again is always taken. The token is never logged nor " +
          "answered: `tokenLast8` shows its last 8 characters."
      })
    ),
    HttpApiEndpoint.get("list", "/", { success: Envelope(Schema.Array(DeviceView)) }).annotateMerge(
      OpenApi.annotations({
        summary: "The caller's active devices, oldest first",
        description:
          "Not paged: a user holds at most 20 active devices. Tokens are shown only by their last 8 characters."
      })
    ),
    HttpApiEndpoint.delete("remove", "/:deviceId", {
      params: { deviceId: DeviceId },
      success: Envelope(Schema.Null),
      error: NotFound
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Remove one of the caller's devices: no more pushes to it (404 unknown or another user's)",
        description: "`data` is null; no push goes to the device after this. 400 for an id that is not a UUID."
      })
    )
  )
  .middleware(Authentication)
  .prefix("/v1/user/devices")
  .annotateMerge(
    OpenApi.annotations({ title: "Devices", description: "The caller's devices for push notifications" })
  ) {}
