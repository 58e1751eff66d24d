import * as Database from "@payments-gaming/adapters/postgres/Database"
import * as PushDeliveryRepository from "@payments-gaming/adapters/postgres/PushDeliveryRepository"
import * as PushGatewaysLive from "@payments-gaming/adapters/push/PushGatewaysLive"
import { PushMessage, PushService } from "@payments-gaming/domain/push"
import { Console, Effect, Layer, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import { CommandEnvironment, UsageError } from "./Runtime.ts"

const PushLive = PushService.layer.pipe(
  Layer.provide(Layer.merge(PushGatewaysLive.layerConfig, PushDeliveryRepository.layer)),
  Layer.provide(Database.layerConfig)
)

const send = Command.make(
  "send",
  {
    type: Flag.Literals("type", ["FCM", "APNS"]).pipe(Flag.withDescription("Token type")),
    token: Flag.String("token").pipe(Flag.withDescription("Device token")),
    title: Flag.String("title").pipe(Flag.withDescription("Notification title")),
    body: Flag.String("body").pipe(Flag.withDescription("Notification text")),
    data: Flag.KeyValuePair("data").pipe(Flag.optional, Flag.withDescription("A data entry key=value (repeatable)")),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print the result as JSON"))
  },
  ({ type, token, title, body, data, json }) =>
    Effect.gen(function* () {
      const message = yield* Schema.decodeUnknownEffect(PushMessage)({
        tokenType: type,
        token,
        title,
        body,
        ...(data._tag === "Some" ? { data: data.value } : {})
      }).pipe(Effect.mapError((error) => new UsageError({ message: error.message })))
      const push = yield* PushService
      const result = yield* push
        .send(message)
        .pipe(Effect.mapError((error) => new UsageError({ message: error.message })))
      if (json) {
        yield* Console.log(JSON.stringify(result))
      } else if (result.success) {
        yield* Console.log(`sent: ${result.providerMessageId}`)
      } else {
        const flags = [result.shouldDeactivateToken ? "deactivate token" : "", result.retryable ? "retryable" : ""]
        yield* Console.log(
          `refused: ${result.errorCode} ${result.errorMessage ?? ""} ${flags.filter((flag) => flag !== "").join(", ")}`.trim()
        )
      }
      // A provider refusal is a failed command for scripts, whatever the output format.
      if (!result.success) process.exitCode = 1
    }).pipe(Effect.provide(PushLive), Effect.provide(CommandEnvironment))
).pipe(Command.withDescription("Send one push through the same gateways as POST /v1/debug/push-direct"))

export const push = Command.make("push").pipe(
  Command.withDescription("Push notifications"),
  Command.withSubcommands([send])
)
