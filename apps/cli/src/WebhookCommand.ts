import * as BankingPostgres from "@payments-gaming/adapters/postgres/BankingPostgres"
import * as Database from "@payments-gaming/adapters/postgres/Database"
import { sign as hmacHex, parseSecrets } from "@payments-gaming/adapters/signature/WebhookSignature"
import { BankingService, type ReplayableOutcome, type ReplayResult } from "@payments-gaming/domain/banking"
import { Config, Console, Data, Effect, FileSystem, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { CommandEnvironment, UsageError } from "./Runtime.ts"

const WEBHOOK_PATH = "/v1/webhook/core-banking/provider"

/** The command ran but did not do what was asked: the server refused, or could not be reached. */
export class WebhookCommandFailed extends Data.TaggedError("WebhookCommandFailed")<{ readonly message: string }> {}

const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON"))

const file = Argument.File("file", { mustExist: true }).pipe(
  Argument.withDescription("The payload file; its exact bytes are signed, so re-formatting it changes the signature")
)

/** The secret the provider signs with today: the first of WEBHOOK_SECRETS (the rest are being rotated out). */
const currentSecret = Effect.gen(function* () {
  const secrets = parseSecrets(yield* Config.Redacted("WEBHOOK_SECRETS"))
  const first = secrets[0]
  if (first === undefined) {
    return yield* new WebhookCommandFailed({ message: "WEBHOOK_SECRETS holds no secret" })
  }
  return first
})

const signFile = (path: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const bytes = yield* fs.readFile(path)
    return { bytes, signature: hmacHex(yield* currentSecret, bytes) }
  })

const sign = Command.make("sign", { file, json }, ({ file, json }) =>
  Effect.gen(function* () {
    const { signature } = yield* signFile(file)
    yield* Console.log(json ? JSON.stringify({ signature }) : signature)
  }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "Print the X-Provider-Signature of a payload: hex HMAC-SHA256 with the first WEBHOOK_SECRETS"
  ),
  Command.withExamples([
    {
      command: "payments-gaming webhook sign examples/webhooks/virtual-account-credit.json",
      description: "Sign a sample"
    }
  ])
)

const defaultBase = Config.Int("PORT").pipe(
  Config.withDefault(8080),
  Config.map((port) => `http://127.0.0.1:${port}`)
)

const endpointOf = (base: string) =>
  Effect.try({
    try: () => {
      const url = new URL(base)
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)")
      return new URL(`${url.pathname.replace(/\/+$/, "")}${WEBHOOK_PATH}`, url).toString()
    },
    catch: () => new UsageError({ message: `--url ${base} is not an http(s) base URL like http://127.0.0.1:8080` })
  })

/** Why fetch failed, in the words an operator searches for (ECONNREFUSED, ENOTFOUND, timeout). */
const reasonOf = (error: unknown): string => {
  if (error instanceof Error) {
    if (error.name === "TimeoutError") return "no answer within 30 seconds"
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
    if (typeof cause?.code === "string") return cause.code === "ECONNREFUSED" ? "connection refused" : cause.code
    if (typeof cause?.message === "string") return cause.message
    return error.message
  }
  return String(error)
}

const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const send = Command.make(
  "send",
  {
    file,
    url: Flag.String("url").pipe(
      Flag.optional,
      Flag.withDescription("Base URL of the service (default http://127.0.0.1:$PORT, PORT defaulting to 8080)")
    ),
    json
  },
  ({ file, url, json }) =>
    Effect.gen(function* () {
      const endpoint = yield* endpointOf(Option.isSome(url) ? url.value : yield* defaultBase)
      const { bytes, signature } = yield* signFile(file)
      const response = yield* Effect.tryPromise({
        try: async (signal) => {
          const answer = await fetch(endpoint, {
            method: "POST",
            headers: { "content-type": "application/json", "x-provider-signature": signature },
            body: bytes,
            signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)])
          })
          return { status: answer.status, statusText: answer.statusText, text: await answer.text() }
        },
        catch: (error) => new WebhookCommandFailed({ message: `cannot deliver to ${endpoint}: ${reasonOf(error)}` })
      })
      if (json) {
        yield* Console.log(JSON.stringify({ status: response.status, body: parseBody(response.text) }))
      } else {
        yield* Console.log(`${response.status} ${response.statusText}`.trim())
        yield* Console.log(response.text)
      }
      // Only an acknowledgement counts: a provider retries anything else.
      if (response.status < 200 || response.status > 299) process.exitCode = 1
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(`Sign a payload file and POST its exact bytes to ${WEBHOOK_PATH}, as the provider does`),
  Command.withExamples([
    {
      command: "payments-gaming webhook send examples/webhooks/virtual-account-credit.json",
      description: "Deliver a sample to the local server"
    },
    {
      command: "payments-gaming webhook send payload.json --url https://staging.example.com",
      description: "Deliver to another instance"
    }
  ])
)

const yesNo = (value: boolean) => (value ? "yes" : "no")

const describeResult = (result: ReplayResult) =>
  [
    result.eventId,
    result.kind,
    result.reference,
    `replayed=${yesNo(result.replayed)}`,
    result.outcome,
    result.reason ?? "-"
  ].join("\t")

/** A status replays every event in it; ids replay those events, reporting the ids that name none. */
const replayEvents = (which: ReplayableOutcome | ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const banking = yield* BankingService
    if (typeof which === "string") return { results: yield* banking.replayByStatus(which), notFound: [] }
    const results: Array<ReplayResult> = []
    const notFound: Array<string> = []
    for (const eventId of which) {
      const result = yield* banking.replay(eventId).pipe(Effect.option)
      if (Option.isSome(result)) results.push(result.value)
      else notFound.push(eventId)
    }
    return { results, notFound }
  })

const replay = Command.make(
  "replay",
  {
    eventIds: Argument.String("eventId").pipe(
      Argument.variadic(),
      Argument.withDescription("Ids of stored events to run again")
    ),
    status: Flag.Literals("status", ["unmatched", "rejected"]).pipe(
      Flag.optional,
      Flag.withDescription("Run again every event stored with this outcome")
    ),
    json
  },
  ({ eventIds, status, json }) =>
    Effect.gen(function* () {
      // Checked before the database is opened, so bad usage answers at once.
      if (eventIds.length === 0 && Option.isNone(status)) {
        return yield* new UsageError({ message: "give event ids or --status unmatched|rejected" })
      }
      if (eventIds.length > 0 && Option.isSome(status)) {
        return yield* new UsageError({ message: "give event ids or --status, not both" })
      }
      const { results, notFound } = yield* replayEvents(Option.isSome(status) ? status.value : eventIds).pipe(
        Effect.provide(BankingPostgres.layer),
        Effect.provide(Database.layerConfig)
      )
      if (json) {
        yield* Console.log(JSON.stringify({ results, notFound }))
      } else if (results.length === 0 && Option.isSome(status)) {
        yield* Console.log(`No ${status.value} events`)
      } else {
        for (const result of results) yield* Console.log(describeResult(result))
      }
      if (notFound.length > 0) {
        return yield* new WebhookCommandFailed({ message: `no webhook event ${notFound.join(", ")}` })
      }
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "Run stored events again after fixing their cause (an account linked, a transfer recorded). " +
      "Only unmatched and rejected events are re-applied; nothing is ever credited twice."
  ),
  Command.withExamples([
    { command: "payments-gaming webhook replay --status unmatched", description: "Every unmatched event" },
    {
      command: "payments-gaming webhook replay 0b6f7c1e-5d0a-4a57-9a55-3d8e2f1c9b10",
      description: "One event by id"
    }
  ])
)

export const webhook = Command.make("webhook").pipe(
  Command.withDescription("Core-banking webhooks: sign and send payloads, replay stored events"),
  Command.withSubcommands([sign, send, replay])
)
