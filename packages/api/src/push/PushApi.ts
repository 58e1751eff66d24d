import { PushMessage, PushResult } from "@payments-gaming/domain/push"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadRequest } from "../ApiErrors.ts"
import { Authentication } from "../middleware/Authentication.ts"
import { InternalKey } from "../middleware/InternalKey.ts"

export class PushApi extends HttpApiGroup.make("push")
  .add(
    HttpApiEndpoint.post("pushDirect", "/v1/debug/push-direct", {
      payload: PushMessage,
      // The spec's response is the push result itself, not an envelope; a provider's refusal is a
      // 200 result with success false.
      success: PushResult,
      error: BadRequest
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Send one push notification directly to a device token (debug)",
        description:
          "Needs a bearer token and X-Internal-Key. errorCode is normalised across FCM and APNs; " +
          "shouldDeactivateToken marks a dead token, retryable a transient failure."
      })
    )
  )
  .middleware(InternalKey)
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Push", description: "Debug push sending through FCM and APNs" })) {}
