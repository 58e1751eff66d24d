import { sign as hmacHex, parseSecrets } from "@payments-gaming/adapters/signature/WebhookSignature"
import { Header, WEBHOOK_PATH } from "@payments-gaming/api/Paths"
import { CommandEnvironment } from "@payments-gaming/composition/CommandEnvironment"
import {
  BankingService,
  EventKind,
  ListingCursor,
  type ListingPosition,
  Outcome,
  Reference,
  type ReplayableOutcome,
  type ReplayResult,
  readWebhook,
  StoredId,
  WebhookEventPage,
  WebhookEventsService
} from "@payments-gaming/domain/banking"
import { Config, Console, Data, Effect, FileSystem, Option, Result, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Backend from "./Backend.ts"
import { checkPageLimit, decodeOptionalFlag } from "./FlagValue.ts"
import { UsageError } from "./Runtime.ts"
import * as ServiceClient from "./ServiceClient.ts"
import { printList, printText } from "./TerminalText.ts"

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
    yield* json ? Console.log(JSON.stringify({ signature })) : printText(signature)
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

/** What `webhook send` learnt of the event it delivered, read back where this CLI can see it. */
type Stored =
  | {
      readonly _tag: "Found"
      readonly event: {
        readonly id: string
        readonly outcome: Outcome
        readonly reason: string | null
        /**
         * Stored before this delivery left (by the service's clock against this CLI's: the same host's
         * in the usual case): this one was a redelivery, and changed nothing.
         */
        readonly earlier: boolean
      }
    }
  | { readonly _tag: "Unknown"; readonly why: string }

const unknown = (why: string): Stored => ({ _tag: "Unknown", why })

const describeStored = (stored: Stored) => {
  if (stored._tag === "Unknown") return `stored outcome unknown: ${stored.why}`
  const { outcome, reason, earlier } = stored.event
  return `stored as ${outcome}${reason === null ? "" : ` (${reason})`}${earlier ? "; stored by an earlier delivery, this one changed nothing" : ""}`
}

/**
 * The stored event of the file's kind and reference, newest first (a conflict of it, if any, is
 * newer than it), read where this CLI reads the service's database: on DATABASE_URL, or through the
 * service that owns DATA_DIR when it is the one the file was sent to. Elsewhere (another host, an
 * embedded database nobody serves) it says so rather than open a database the delivery never reached.
 */
const storedAfterSend = (endpoint: string, bytes: Uint8Array, sentAt: number) =>
  Effect.gen(function* () {
    const read = readWebhook(bytes)
    if (Result.isFailure(read)) return unknown("the file is not a webhook this service reads")
    const decoded = read.success
    if (decoded.kind === "ignored") return unknown("an event with no kind flag is stored as ignored")
    const query: ListQuery = {
      outcome: undefined,
      kind: decoded.kind,
      reference: decoded.reference,
      after: undefined,
      limit: 1
    }
    const databaseUrl = yield* Config.String("DATABASE_URL").pipe(Config.option)
    let page: WebhookEventPage
    if (Option.isSome(databaseUrl) && databaseUrl.value.trim() !== "") {
      page = yield* listDirectly(query)
    } else {
      const backend = yield* Backend.resolve
      if (backend._tag !== "Service" || new URL(backend.url).origin !== new URL(endpoint).origin) {
        return unknown(
          `${new URL(endpoint).origin} is not a service whose database this CLI reads (set DATABASE_URL, or see webhook list there)`
        )
      }
      page = yield* listThroughService(backend.url, query)
    }
    const [event] = page.items
    if (event === undefined) return unknown("no event of that reference in the database this CLI reads")
    const found: Stored = {
      _tag: "Found",
      event: {
        id: event.id,
        outcome: event.outcome,
        reason: event.reason,
        earlier: Date.parse(event.receivedAt) < sentAt
      }
    }
    return found
  }).pipe(
    // A failed read-back does not undo a delivery the service acknowledged: it is reported instead.
    Effect.catch((error) => Effect.succeed(unknown(reasonOf(error))))
  )

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
      const sentAt = Date.now()
      const response = yield* Effect.tryPromise({
        try: async (signal) => {
          const answer = await fetch(endpoint, {
            method: "POST",
            headers: { "content-type": "application/json", [Header.providerSignature]: signature },
            body: bytes,
            signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)])
          })
          return { status: answer.status, statusText: answer.statusText, text: await answer.text() }
        },
        catch: (error) => new WebhookCommandFailed({ message: `cannot deliver to ${endpoint}: ${reasonOf(error)}` })
      })
      const acknowledged = response.status >= 200 && response.status <= 299
      // The service answers 200 for every event it stored, applied or not: what it stored is read back.
      const stored = acknowledged ? yield* storedAfterSend(endpoint, bytes, sentAt) : undefined
      if (json) {
        const found = stored?._tag === "Found" ? stored.event : null
        yield* Console.log(JSON.stringify({ status: response.status, body: parseBody(response.text), stored: found }))
      } else {
        yield* printText(`${response.status} ${response.statusText}`.trim())
        if (stored === undefined) yield* printText(response.text)
        else yield* printText(describeStored(stored))
      }
      // Only an acknowledgement counts: a provider retries anything else.
      if (!acknowledged) process.exitCode = 1
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

interface Replayed {
  readonly results: ReadonlyArray<ReplayResult>
  readonly notFound: ReadonlyArray<string>
}

/** The database's banking use cases, loaded only when a command runs: --help never pays for them. */
const onDatabase = <A, E, R>(use: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const Commands = yield* Effect.promise(() => import("@payments-gaming/composition/Commands"))
    return yield* use.pipe(Effect.provide(Commands.Banking))
  })

/** A status replays every event in it; ids replay those events, reporting the ids that name none. */
const replayDirectly = (which: ReplayableOutcome | ReadonlyArray<string>) =>
  onDatabase(
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
      return { results, notFound } satisfies Replayed
    })
  )

const isStoredId = Schema.is(StoredId)

/**
 * The same replays through the service that owns the embedded database. An id that is not a UUID
 * names no event, as on the database directly (the service would call it a bad request).
 */
const replayThroughService = (baseUrl: string, which: ReplayableOutcome | ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (typeof which === "string") {
      const answer = yield* ServiceClient.call(baseUrl, (api) =>
        api.webhookEvents.replayByOutcome({ payload: { outcome: which } })
      )
      return { results: answer.data, notFound: [] }
    }
    const results: Array<ReplayResult> = []
    const notFound: Array<string> = []
    for (const eventId of which) {
      if (!isStoredId(eventId)) {
        notFound.push(eventId)
        continue
      }
      const answer = yield* ServiceClient.call(baseUrl, (api) =>
        api.webhookEvents.replay({ params: { id: eventId } })
      ).pipe(
        Effect.map(Option.some),
        Effect.catchIf(
          (error) => error._tag === "ServiceCallFailed" && error.status === 404,
          () => Effect.succeedNone
        )
      )
      if (Option.isSome(answer)) results.push(answer.value.data)
      else notFound.push(eventId)
    }
    return { results, notFound } satisfies Replayed
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
      const which = Option.isSome(status) ? status.value : eventIds
      // Beside a service that owns the embedded database, through its API; otherwise on the database.
      const backend = yield* Backend.resolve
      const { results, notFound } =
        backend._tag === "Service" ? yield* replayThroughService(backend.url, which) : yield* replayDirectly(which)
      if (json) {
        yield* Console.log(JSON.stringify({ results, notFound }))
      } else {
        // `outcome` is what the event is stored as now: `replayed` says whether it was run again.
        yield* printList({
          columns: ["id", "kind", "reference", "replayed", "outcome", "reason"],
          rows: results.map((result) => [
            result.eventId,
            result.kind,
            result.reference,
            result.replayed ? "yes" : "no",
            result.outcome,
            result.reason ?? "-"
          ]),
          noun: Option.isSome(status) ? `${status.value} events` : "events replayed"
        })
      }
      if (notFound.length > 0) {
        return yield* new WebhookCommandFailed({ message: `no webhook event ${notFound.join(", ")}` })
      }
      // A replay that left an event unmatched or rejected did not do what it was asked: exit 1, so a
      // script that links an account and replays learns that the fix did not take.
      const still = results.filter((result) => result.outcome === "unmatched" || result.outcome === "rejected")
      if (still.length > 0) {
        return yield* new WebhookCommandFailed({
          message: `${still.length} of ${results.length} events still ${[...new Set(still.map((result) => result.outcome))].join(" or ")} after the replay: fix their cause (webhook list shows the reason) and replay again`
        })
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

interface ListQuery {
  readonly outcome: Outcome | undefined
  readonly kind: EventKind | undefined
  readonly reference?: string | undefined
  readonly after: ListingPosition | undefined
  readonly limit: number
}

const listDirectly = (query: ListQuery) => onDatabase(WebhookEventsService.use((events) => events.list(query)))

const listThroughService = (baseUrl: string, query: ListQuery) =>
  ServiceClient.call(baseUrl, (api) =>
    api.webhookEvents.list({
      query: {
        limit: query.limit,
        ...(query.outcome === undefined ? {} : { status: query.outcome }),
        ...(query.kind === undefined ? {} : { kind: query.kind }),
        ...(query.reference === undefined ? {} : { reference: query.reference }),
        ...(query.after === undefined ? {} : { cursor: query.after })
      }
    })
  ).pipe(Effect.map((answer) => answer.data))

const list = Command.make(
  "list",
  {
    status: Flag.Literals("status", Outcome.literals).pipe(
      Flag.optional,
      Flag.withDescription("Only events with this outcome")
    ),
    kind: Flag.Literals("kind", EventKind.literals).pipe(
      Flag.optional,
      Flag.withDescription("Only events of this kind")
    ),
    reference: Flag.String("reference").pipe(
      Flag.optional,
      Flag.withDescription("Only events of this data.reference (its event and any conflicting redelivery)")
    ),
    limit: Flag.Int("limit").pipe(Flag.withDefault(50), Flag.withDescription("How many events, 1 to 200")),
    cursor: Flag.String("cursor").pipe(
      Flag.optional,
      Flag.withDescription("Continue after a previous page: its nextCursor (printed with --json)")
    ),
    json
  },
  ({ status, kind, reference, limit, cursor, json }) =>
    Effect.gen(function* () {
      yield* checkPageLimit(limit)
      const after = Option.isSome(cursor)
        ? yield* Schema.decodeUnknownEffect(ListingCursor)(cursor.value).pipe(
            Effect.mapError(() => new UsageError({ message: "--cursor: not a nextCursor from a previous page" }))
          )
        : undefined
      const query: ListQuery = {
        outcome: Option.getOrUndefined(status),
        kind: Option.getOrUndefined(kind),
        reference: yield* decodeOptionalFlag(Reference, reference, "--reference", "1 to 256 characters"),
        after,
        limit
      }
      const backend = yield* Backend.resolve
      const page =
        backend._tag === "Service" ? yield* listThroughService(backend.url, query) : yield* listDirectly(query)
      // The page as the API answers it: its nextCursor is the opaque text --cursor takes back.
      const encoded = Schema.encodeSync(WebhookEventPage)(page)
      if (json) {
        yield* Console.log(JSON.stringify(encoded))
      } else {
        yield* printList({
          columns: ["id", "kind", "reference", "outcome", "reason", "receivedAt"],
          rows: page.items.map((item) => [
            item.id,
            item.kind,
            item.reference,
            item.outcome,
            item.reason ?? "-",
            item.receivedAt
          ]),
          noun: [query.outcome, query.kind, "webhook events"].filter((word) => word !== undefined).join(" "),
          next: encoded.nextCursor === null ? undefined : `--cursor ${encoded.nextCursor}`
        })
      }
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "List stored webhook events, newest first: one tab-separated line each (id, kind, reference, outcome, " +
      "reason, receivedAt), or --json with the page's nextCursor"
  ),
  Command.withExamples([
    { command: "payments-gaming webhook list --status unmatched", description: "Events waiting for an account" },
    {
      command: "payments-gaming webhook list --kind transfer.failed --limit 200 --json",
      description: "Up to 200 failed-transfer events, as JSON"
    }
  ])
)

export const webhook = Command.make("webhook").pipe(
  Command.withDescription("Core-banking webhooks: sign and send payloads, list and replay stored events"),
  Command.withSubcommands([sign, send, list, replay])
)
