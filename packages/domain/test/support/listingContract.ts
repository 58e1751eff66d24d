import { assert, type Vitest } from "@effect/vitest"
import {
  DeadLetters,
  type EventKind,
  encodeCursor,
  ListingCursor,
  type ListingPosition,
  WebhookEventsService,
  WebhookInbox
} from "@payments-gaming/domain/banking"
import { Effect, Result, Schema } from "effect"
import type { BankingContext } from "./bankingContract.ts"
import { receive } from "./bankingContract.ts"
import { bytes, credit, unique } from "./fixtures.ts"

type It = Vitest.MethodsNonLive<BankingContext>

/** Descending (receivedAt, id): the order every listing promises, PostgreSQL's uuid order included. */
const newestFirst = (a: ListingPosition, b: ListingPosition) =>
  b.receivedAt.getTime() - a.receivedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

let windows = 0

/**
 * Stores events straight into the inbox, received in a day of the year 2199 of their own (the other
 * tests' events are received now), several at the same instant so the id has to break ties. `start`
 * is the position just above the window, where a listing of it begins.
 */
const storeWindow = (specs: ReadonlyArray<{ kind: EventKind; at: number; outcome?: "unmatched" | "rejected" }>) =>
  Effect.gen(function* () {
    const inbox = yield* WebhookInbox
    const base = Date.parse("2199-06-01T00:00:00.000Z") + windows++ * 86_400_000
    const stored: Array<{ id: string; receivedAt: Date; kind: EventKind; outcome: string }> = []
    for (const spec of specs) {
      const reference = unique("list")
      const receivedAt = new Date(base + spec.at)
      // Not "processed": that would claim a posting the ledger does not have.
      const outcome = spec.outcome ?? "ignored"
      const result = yield* inbox.store(
        {
          kind: spec.kind,
          reference,
          dedupKey: `${spec.kind}:${reference}`,
          rawBody: bytes({ reference }),
          signature: "sig",
          receivedAt
        },
        { outcome, reason: null, processedAt: receivedAt }
      )
      stored.push({ id: result.event.id, receivedAt, kind: spec.kind, outcome })
    }
    const to = base + Math.max(...specs.map((spec) => spec.at))
    const start: ListingPosition = { receivedAt: new Date(to + 1), id: "00000000-0000-0000-0000-000000000000" }
    return { stored, from: new Date(base), start }
  })

/** Pages through a listing from `after` until it ends or leaves the window, checking every cursor. */
const pageThrough = <Item extends { readonly id: string; readonly receivedAt: string }>(
  list: (after: ListingPosition | undefined) => Effect.Effect<{
    readonly items: ReadonlyArray<Item>
    readonly nextCursor: ListingPosition | null
  }>,
  options: { readonly from?: Date; readonly start?: ListingPosition; readonly limit: number }
) =>
  Effect.gen(function* () {
    const seen: Array<Item> = []
    let after = options.start
    let pages = 0
    for (;;) {
      const page = yield* list(after)
      pages += 1
      assert.isAtMost(page.items.length, options.limit)
      seen.push(...page.items)
      const last = page.items.at(-1)
      if (page.nextCursor === null) break
      // A next page is announced only after a full one, and resumes right after its last row.
      assert.strictEqual(page.items.length, options.limit)
      assert.deepStrictEqual(page.nextCursor, { receivedAt: new Date(last!.receivedAt), id: last!.id })
      if (options.from !== undefined && Date.parse(last!.receivedAt) < options.from.getTime()) break
      after = page.nextCursor
    }
    const inWindow =
      options.from === undefined ? seen : seen.filter((item) => Date.parse(item.receivedAt) >= options.from!.getTime())
    return { ids: inWindow.map((item) => item.id), all: seen, pages }
  })

/** The keyset listing of `WebhookInbox` and `DeadLetters`, through the operators' use case. */
export const listingContract = (it: It) => {
  it.effect("lists events newest first in pages that join with no repeat or gap, ties broken by id", () =>
    Effect.gen(function* () {
      const events = yield* WebhookEventsService
      const { stored, from, start } = yield* storeWindow([
        { kind: "virtualaccount.credit", at: 0 },
        { kind: "virtualaccount.credit", at: 5 },
        { kind: "ignored", at: 5 },
        { kind: "transfer.success", at: 5 },
        { kind: "virtualaccount.credit", at: 9 },
        { kind: "transfer.failed", at: 12 },
        { kind: "virtualaccount.credit", at: 12 }
      ])
      const expected = [...stored].sort(newestFirst).map((event) => event.id)
      for (const limit of [1, 2, 3, 7, 50]) {
        const { ids } = yield* pageThrough((after) => events.list({ after, limit }), { from, start, limit })
        assert.deepStrictEqual(ids, expected, `limit ${limit}`)
      }
      // A cursor is a position: starting after the third event gives exactly the rest.
      const third = stored.find((event) => event.id === expected[2])!
      const rest = yield* events.list({ after: { receivedAt: third.receivedAt, id: third.id }, limit: 4 })
      assert.deepStrictEqual(
        rest.items.map((item) => item.id),
        expected.slice(3)
      )
      const first = rest.items[0]!
      assert.deepStrictEqual(Object.keys(first).sort(), ["id", "kind", "outcome", "reason", "receivedAt", "reference"])
      assert.match(first.receivedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    })
  )

  it.effect("filters by outcome and by kind, together or alone", () =>
    Effect.gen(function* () {
      const events = yield* WebhookEventsService
      const { stored, from, start } = yield* storeWindow([
        { kind: "virtualaccount.credit", at: 0, outcome: "unmatched" },
        { kind: "virtualaccount.credit", at: 1, outcome: "rejected" },
        { kind: "transfer.success", at: 1, outcome: "unmatched" },
        { kind: "virtualaccount.credit", at: 2 },
        { kind: "virtualaccount.credit", at: 3, outcome: "unmatched" },
        { kind: "transfer.failed", at: 4, outcome: "rejected" }
      ])
      const expect = (outcome?: string, kind?: EventKind) =>
        stored
          .filter(
            (event) =>
              (outcome === undefined || event.outcome === outcome) && (kind === undefined || event.kind === kind)
          )
          .sort(newestFirst)
          .map((event) => event.id)
      const cases: ReadonlyArray<readonly ["unmatched" | "rejected" | "ignored" | undefined, EventKind?]> = [
        ["unmatched"],
        ["rejected"],
        [undefined, "virtualaccount.credit"],
        [undefined, "transfer.success"],
        ["unmatched", "virtualaccount.credit"],
        ["rejected", "transfer.failed"],
        ["ignored", "virtualaccount.credit"],
        ["ignored", "transfer.failed"]
      ]
      for (const [outcome, kind] of cases) {
        const { ids, all } = yield* pageThrough((after) => events.list({ outcome, kind, after, limit: 2 }), {
          from,
          start,
          limit: 2
        })
        assert.deepStrictEqual(ids, expect(outcome, kind), `${outcome} ${kind}`)
        for (const item of all) {
          if (outcome !== undefined) assert.strictEqual(item.outcome, outcome)
          if (kind !== undefined) assert.strictEqual(item.kind, kind)
        }
      }
    })
  )

  it.effect("paging the whole inbox gives every stored event once, and the last page says it is last", () =>
    Effect.gen(function* () {
      const events = yield* WebhookEventsService
      const inbox = yield* WebhookInbox
      yield* receive(credit({ reference: unique("VA"), accountNumber: unique("nobody") }))
      const { all, pages } = yield* pageThrough((after) => events.list({ after, limit: 3 }), { limit: 3 })
      assert.isAbove(pages, 1)
      const everything = yield* inbox.list({ limit: 100_000, offset: 0 })
      assert.strictEqual(all.length, everything.length)
      assert.strictEqual(new Set(all.map((item) => item.id)).size, all.length)
      assert.sameMembers(
        all.map((item) => item.id),
        everything.map((event) => event.id)
      )
      // Out-of-range limits are held to 1..200 by the use case too.
      assert.lengthOf((yield* events.list({ limit: 0 })).items, 1)
      assert.isAtMost((yield* events.list({ limit: 10_000 })).items.length, 200)
    })
  )

  it.effect("an event's detail has its raw body as text and when it was processed; unknown ids are not found", () =>
    Effect.gen(function* () {
      const events = yield* WebhookEventsService
      const raw = ` ${JSON.stringify(credit({ reference: unique("VA"), accountNumber: unique("nobody") }))}\n`
      const result = yield* receive(bytes(raw))
      const detail = yield* events.detail(result.eventId)
      assert.strictEqual(detail.id, result.eventId)
      assert.strictEqual(detail.outcome, "unmatched")
      assert.strictEqual(detail.bodyEncoding, "utf8")
      assert.strictEqual(detail.body, raw)
      assert.isNotNull(detail.processedAt)
      assert.isNotNull(detail.reason)
      for (const id of ["0b6f7c1e-5d0a-4a57-9a55-3d8e2f1c9b10", "not-a-uuid"]) {
        const missing = yield* Effect.flip(events.detail(id))
        assert.strictEqual(missing._tag, "WebhookEventNotFound")
      }
    })
  )

  it.effect("dead letters page newest first with their bodies, base64 when not UTF-8", () =>
    Effect.gen(function* () {
      const events = yield* WebhookEventsService
      const deadLetters = yield* DeadLetters
      const invalidUtf8 = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])
      const notJson = "{not json"
      const letters: Array<string> = []
      for (const body of [invalidUtf8, bytes(notJson), invalidUtf8]) {
        const failure = yield* Effect.flip(receive(body))
        letters.push(failure.deadLetterId)
      }
      const { all } = yield* pageThrough((after) => events.deadLetters({ after, limit: 2 }), { limit: 2 })
      const everything = yield* deadLetters.list({ limit: 100_000, offset: 0 })
      assert.strictEqual(all.length, everything.length)
      assert.deepStrictEqual(
        all.map((item) => item.id),
        [...everything].sort(newestFirst).map((letter) => letter.id)
      )
      const byId = new Map(all.map((item) => [item.id, item]))
      const binary = byId.get(letters[0]!)!
      assert.strictEqual(binary.bodyEncoding, "base64")
      assert.deepStrictEqual(new Uint8Array(Buffer.from(binary.body, "base64")), invalidUtf8)
      const text = byId.get(letters[1]!)!
      assert.deepStrictEqual([text.bodyEncoding, text.body], ["utf8", notJson])
      assert.include(text.error, "JSON")
    })
  )

  it.effect("the cursor is opaque text that decodes back to its position; anything else is refused", () =>
    Effect.sync(() => {
      const position = { receivedAt: new Date("2026-03-01T10:00:00.123Z"), id: "0b6f7c1e-5d0a-4a57-9a55-3d8e2f1c9b10" }
      const cursor = encodeCursor(position)
      assert.match(cursor, /^[A-Za-z0-9_-]+$/)
      assert.notInclude(cursor, position.id)
      const decode = Schema.decodeUnknownResult(ListingCursor)
      assert.deepStrictEqual(Result.getOrThrow(decode(cursor)), position)
      const forged = (text: string) => Buffer.from(text).toString("base64url")
      for (const bad of [
        "",
        "!!!",
        "x".repeat(200),
        forged("10.not-a-uuid"),
        forged(`-1.${position.id}`),
        forged(`1e3.${position.id}`),
        forged(position.id),
        42
      ]) {
        assert.isTrue(Result.isFailure(decode(bad)), String(bad))
      }
    })
  )
}
