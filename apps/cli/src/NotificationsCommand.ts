import { CommandEnvironment } from "@payments-gaming/composition/CommandEnvironment"
import {
  NotificationId,
  NotificationsService,
  OutboxStatus,
  type RetryableStatus,
  type RetryResult
} from "@payments-gaming/domain/notifications"
import { Console, Data, Effect, Option, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Backend from "./Backend.ts"
import { checkPageLimit } from "./FlagValue.ts"
import { UsageError } from "./Runtime.ts"
import * as ServiceClient from "./ServiceClient.ts"
import { printList } from "./TerminalText.ts"

/** An id named no notification. */
export class NotificationsCommandFailed extends Data.TaggedError("NotificationsCommandFailed")<{
  readonly message: string
}> {}

const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON"))

/** The outbox's operator use cases on the database itself, loaded only when a command runs. */
const onDatabase = <A, E>(use: (service: NotificationsService["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const Commands = yield* Effect.promise(() => import("@payments-gaming/composition/Commands"))
    return yield* Effect.flatMap(Effect.service(NotificationsService), use).pipe(Effect.provide(Commands.Notifications))
  })

interface ListQuery {
  readonly status: OutboxStatus | undefined
  readonly limit: number
  readonly offset: number
}

const listThroughService = (baseUrl: string, query: ListQuery) =>
  ServiceClient.call(baseUrl, (api) =>
    api.notifications.list({
      query: {
        limit: query.limit,
        offset: query.offset,
        ...(query.status === undefined ? {} : { status: query.status })
      }
    })
  ).pipe(Effect.map((answer) => answer.data))

const list = Command.make(
  "list",
  {
    status: Flag.Literals("status", OutboxStatus.literals).pipe(
      Flag.optional,
      Flag.withDescription("Only notifications in this status")
    ),
    limit: Flag.Int("limit").pipe(Flag.withDefault(50), Flag.withDescription("How many, 1 to 200")),
    offset: Flag.Int("offset").pipe(Flag.withDefault(0), Flag.withDescription("How many to skip")),
    json
  },
  ({ status, limit, offset, json }) =>
    Effect.gen(function* () {
      yield* checkPageLimit(limit)
      if (!Number.isInteger(offset) || offset < 0) {
        return yield* new UsageError({ message: `--offset ${offset}: must be 0 or more` })
      }
      const query: ListQuery = { status: Option.getOrUndefined(status), limit, offset }
      const backend = yield* Backend.resolve
      const rows =
        backend._tag === "Service"
          ? yield* listThroughService(backend.url, query)
          : yield* onDatabase((service) => service.list(query))
      if (json) {
        yield* Console.log(JSON.stringify(rows))
      } else {
        yield* printList({
          columns: ["id", "status", "attempts", "userId", "templateCode", "lastError", "createdAt", "resends"],
          rows: rows.map((row) => [
            row.id,
            row.status,
            String(row.attempts),
            row.userId,
            row.templateCode,
            row.lastError ?? "-",
            row.createdAt,
            // Sends made while an earlier one may have reached the provider; "?" while a send is unconfirmed.
            `${row.resends}${row.unconfirmed ? "?" : ""}`
          ]),
          noun: status._tag === "Some" ? `${status.value} notifications` : "notifications",
          // A full page may have a next one; offsets are positions, so the next page starts after it.
          next: rows.length === limit ? `--offset ${offset + limit}` : undefined
        })
      }
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "List notification outbox rows, newest first: one tab-separated line each (id, status, attempts, userId, " +
      "templateCode, lastError, createdAt, resends), or --json (each row with its deliveries)"
  ),
  Command.withExamples([
    { command: "payments-gaming notifications list --status failed", description: "Notifications parked as failed" }
  ])
)

const isNotificationId = Schema.is(NotificationId)

interface Retried {
  readonly results: ReadonlyArray<RetryResult>
  readonly notFound: ReadonlyArray<string>
}

const retryDirectly = (which: RetryableStatus | ReadonlyArray<string>) =>
  onDatabase((service) =>
    Effect.gen(function* () {
      if (typeof which === "string") return { results: yield* service.retryByStatus(which), notFound: [] }
      const results: Array<RetryResult> = []
      const notFound: Array<string> = []
      for (const id of which) {
        const result = yield* service.retry(id).pipe(Effect.option)
        if (Option.isSome(result)) results.push(result.value)
        else notFound.push(id)
      }
      return { results, notFound } satisfies Retried
    })
  )

const retryThroughService = (baseUrl: string, which: RetryableStatus | ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (typeof which === "string") {
      const answer = yield* ServiceClient.call(baseUrl, (api) =>
        api.notifications.retryByStatus({ payload: { status: which } })
      )
      return { results: answer.data, notFound: [] }
    }
    const results: Array<RetryResult> = []
    const notFound: Array<string> = []
    for (const id of which) {
      // A non-UUID names no notification, as on the database directly.
      if (!isNotificationId(id)) {
        notFound.push(id)
        continue
      }
      const answer = yield* ServiceClient.call(baseUrl, (api) => api.notifications.retry({ params: { id } })).pipe(
        Effect.map(Option.some),
        Effect.catchIf(
          (error) => error._tag === "ServiceCallFailed" && error.status === 404,
          () => Effect.succeedNone
        )
      )
      if (Option.isSome(answer)) results.push(answer.value.data)
      else notFound.push(id)
    }
    return { results, notFound } satisfies Retried
  })

const retry = Command.make(
  "retry",
  {
    ids: Argument.String("id").pipe(
      Argument.variadic(),
      Argument.withDescription("Ids of notifications to send again")
    ),
    status: Flag.Literals("status", ["failed"]).pipe(
      Flag.optional,
      Flag.withDescription("Send again every notification in this status")
    ),
    json
  },
  ({ ids, status, json }) =>
    Effect.gen(function* () {
      if (ids.length === 0 && Option.isNone(status)) {
        return yield* new UsageError({ message: "give notification ids or --status failed" })
      }
      if (ids.length > 0 && Option.isSome(status)) {
        return yield* new UsageError({ message: "give notification ids or --status, not both" })
      }
      const which = Option.isSome(status) ? status.value : ids
      const backend = yield* Backend.resolve
      const { results, notFound } =
        backend._tag === "Service" ? yield* retryThroughService(backend.url, which) : yield* retryDirectly(which)
      if (json) {
        yield* Console.log(JSON.stringify({ results, notFound }))
      } else {
        yield* printList({
          columns: ["id", "retried", "status"],
          rows: results.map((result) => [result.id, result.retried ? "yes" : "no", result.status]),
          noun: Option.isSome(status) ? `${status.value} notifications` : "notifications retried"
        })
      }
      if (notFound.length > 0) {
        return yield* new NotificationsCommandFailed({ message: `no notification ${notFound.join(", ")}` })
      }
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "Send failed notifications again: each becomes pending, due now, with a fresh count of attempts. " +
      "A notification in any other status is left as it is."
  ),
  Command.withExamples([
    { command: "payments-gaming notifications retry --status failed", description: "Every failed notification" },
    {
      command: "payments-gaming notifications retry 0b6f7c1e-5d0a-4a57-9a55-3d8e2f1c9b10",
      description: "One notification by id"
    }
  ])
)

export const notifications = Command.make("notifications").pipe(
  Command.withDescription("The notification outbox: list notifications and send failed ones again"),
  Command.withSubcommands([list, retry])
)
