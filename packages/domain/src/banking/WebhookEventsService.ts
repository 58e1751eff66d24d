import { Context, Effect, Layer } from "effect"
import { DeadLetters } from "./DeadLetters.ts"
import { WebhookEventNotFound } from "./Errors.ts"
import type { ListingPosition } from "./ListingCursor.ts"
import type { EventKind, Outcome } from "./Model.ts"
import {
  type DeadLetterPage,
  toDeadLetterView,
  toEventDetail,
  toEventSummary,
  type WebhookEventDetail,
  type WebhookEventPage
} from "./WebhookEventViews.ts"
import { WebhookInbox } from "./WebhookInbox.ts"

/** The largest page an operator can ask for; the edges refuse more, this only makes sure. */
export const MAX_PAGE = 200

/**
 * What operators read of the webhook intake: stored events and dead letters, newest first, paged by
 * position. Replays stay with `BankingService`, which owns applying events.
 */
export class WebhookEventsService extends Context.Service<
  WebhookEventsService,
  {
    list(query: {
      readonly outcome?: Outcome | undefined
      readonly kind?: EventKind | undefined
      readonly reference?: string | undefined
      readonly after?: ListingPosition | undefined
      readonly limit: number
    }): Effect.Effect<WebhookEventPage>
    detail(id: string): Effect.Effect<WebhookEventDetail, WebhookEventNotFound>
    deadLetters(query: {
      readonly after?: ListingPosition | undefined
      readonly limit: number
    }): Effect.Effect<DeadLetterPage>
  }
>()("@payments-gaming/domain/banking/WebhookEventsService") {
  static readonly layer: Layer.Layer<WebhookEventsService, never, WebhookInbox | DeadLetters> = Layer.effect(
    this,
    Effect.gen(function* () {
      const inbox = yield* WebhookInbox
      const deadLetters = yield* DeadLetters

      const bounded = (limit: number) => Math.min(Math.max(Math.trunc(limit), 1), MAX_PAGE)

      // One row more than the page: whether it exists says if there is a next page, so the last
      // page says so itself rather than an empty one after it.
      const paged = <Row extends ListingPosition, View>(
        rows: ReadonlyArray<Row>,
        limit: number,
        view: (row: Row) => View
      ) => {
        const page = rows.slice(0, limit)
        const last = page.at(-1)
        return {
          items: page.map(view),
          nextCursor: rows.length > limit && last !== undefined ? { receivedAt: last.receivedAt, id: last.id } : null
        }
      }

      const list = Effect.fn("WebhookEventsService.list")(function* (query: {
        readonly outcome?: Outcome | undefined
        readonly kind?: EventKind | undefined
        readonly reference?: string | undefined
        readonly after?: ListingPosition | undefined
        readonly limit: number
      }) {
        const limit = bounded(query.limit)
        const rows = yield* inbox.listPage({ ...query, limit: limit + 1 })
        return paged(rows, limit, toEventSummary)
      })

      const detail = Effect.fn("WebhookEventsService.detail")(function* (id: string) {
        const found = yield* inbox.find(id)
        if (found._tag === "None") {
          return yield* new WebhookEventNotFound({ eventId: id, message: `no webhook event ${id}` })
        }
        return toEventDetail(found.value)
      })

      const listDeadLetters = Effect.fn("WebhookEventsService.deadLetters")(function* (query: {
        readonly after?: ListingPosition | undefined
        readonly limit: number
      }) {
        const limit = bounded(query.limit)
        const rows = yield* deadLetters.listPage({ after: query.after, limit: limit + 1 })
        return paged(rows, limit, toDeadLetterView)
      })

      return WebhookEventsService.of({ list, detail, deadLetters: listDeadLetters })
    })
  )
}
