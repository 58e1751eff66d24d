import { CommandEnvironment } from "@payments-gaming/composition/CommandEnvironment"
import { PushMessage, PushService } from "@payments-gaming/domain/push"
import { Console, Effect, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import * as Backend from "./Backend.ts"
import { UsageError } from "./Runtime.ts"
import * as ServiceClient from "./ServiceClient.ts"
import { printText } from "./TerminalText.ts"

/** Sends from this process: the configured gateways, recording the attempt in the database. */
const sendDirectly = (message: PushMessage) =>
  Effect.gen(function* () {
    // Loaded only when the command runs: the SDKs and the database cost seconds to load.
    const Commands = yield* Effect.promise(() => import("@payments-gaming/composition/Commands"))
    return yield* PushService.use((push) => push.send(message)).pipe(
      Effect.mapError((error) => new UsageError({ message: error.message })),
      Effect.provide(Commands.Push)
    )
  })

/** The same push through the service that owns the embedded database (POST /v1/debug/push-direct). */
const sendThroughService = (baseUrl: string, message: PushMessage) =>
  ServiceClient.call(baseUrl, (api) => api.push.pushDirect({ payload: message }))

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
      const backend = yield* Backend.resolve
      const result =
        backend._tag === "Service" ? yield* sendThroughService(backend.url, message) : yield* sendDirectly(message)
      if (json) {
        yield* Console.log(JSON.stringify(result))
      } else if (result.success) {
        yield* printText(`sent: ${result.providerMessageId}`)
      } else {
        const flags = [result.shouldDeactivateToken ? "deactivate token" : "", result.retryable ? "retryable" : ""]
        yield* printText(
          `refused: ${result.errorCode} ${result.errorMessage ?? ""} ${flags.filter((flag) => flag !== "").join(", ")}`.trim()
        )
      }
      // A provider refusal is a failed command for scripts, whatever the output format.
      if (!result.success) process.exitCode = 1
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(Command.withDescription("Send one push through the same gateways as POST /v1/debug/push-direct"))

export const push = Command.make("push").pipe(
  Command.withDescription("Push notifications"),
  Command.withSubcommands([send])
)
