import { assert, type Vitest } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import {
  BankingService,
  DeadLetters,
  Transfers,
  type VirtualAccounts,
  type WebhookEventsService,
  WebhookInbox
} from "@payments-gaming/domain/banking"
import { Account, Ledger, LedgerRecorder, Movements, type UnitOfWork } from "@payments-gaming/domain/ledger"
import { Money } from "@payments-gaming/domain/money"
import { BigDecimal, Effect, Exit, Option, Result } from "effect"
import { bytes, credit, type Json, transferEvent, unique } from "./fixtures.ts"
import { listingContract } from "./listingContract.ts"

export type BankingContext =
  | BankingService
  | Ledger
  | LedgerRecorder
  | UnitOfWork
  | WebhookInbox
  | DeadLetters
  | VirtualAccounts
  | Transfers
  | WebhookEventsService

type It = Vitest.MethodsNonLive<BankingContext>

const dec = BigDecimal.fromStringUnsafe

export const receive = (payload: Json | string | Uint8Array, signature = "sig") =>
  Effect.flatMap(Effect.service(BankingService), (banking) =>
    banking.receive({
      rawBody: payload instanceof Uint8Array ? payload : bytes(payload),
      signature,
      receivedAt: new Date()
    })
  )

export const walletOf = (userId: UserId) =>
  Effect.flatMap(Effect.service(BankingService), (banking) => banking.wallet(userId))

export const cash = (userId: UserId, currency: "NGN" | "USD" = "NGN") =>
  Effect.flatMap(Effect.service(Ledger), (ledger) =>
    Effect.map(ledger.balance(Account.userCash(userId, currency)), Money.format)
  )

/** A credit event as the inbox stores it, without going through the service. */
const inboxEvent = (reference: string) => ({
  kind: "virtualaccount.credit" as const,
  reference,
  dedupKey: `virtualaccount.credit:${reference}`,
  rawBody: bytes({ reference }),
  signature: "sig",
  receivedAt: new Date()
})

/** Its deposit of 10 NGN to `userId`, with no notification. */
const inboxDeposit = (userId: UserId, reference: string) => ({
  transaction: Result.getOrThrow(Movements.deposit({ reference, userId, currency: "NGN", amount: dec("10") }))
})

/** A user with a linked NGN virtual account. */
export const linkedUser = Effect.gen(function* () {
  const banking = yield* BankingService
  const userId = unique("user") as UserId
  const accountNumber = unique("VA")
  yield* banking.linkVirtualAccount(accountNumber, { userId, currency: "NGN" })
  return { userId, accountNumber }
})

/** A user whose wallet holds `amount` NGN, credited through a webhook. */
export const fundedUser = (amount: string) =>
  Effect.gen(function* () {
    const user = yield* linkedUser
    const result = yield* receive(
      credit({ reference: unique("fund"), accountNumber: user.accountNumber, amount, fee: "0", settled: amount })
    )
    assert.strictEqual(result.outcome, "processed")
    return user
  })

const storedOutcome = (eventId: string) =>
  Effect.flatMap(Effect.service(WebhookInbox), (inbox) =>
    Effect.map(inbox.find(eventId), (event) => {
      const found = Option.getOrThrow(event)
      return [found.outcome, found.reason] as const
    })
  )

/** What `BankingService` must do on any implementation of its ports. */
export const bankingContract = (it: It) => {
  listingContract(it)

  it.effect("a credit puts settled_amount in the owner's wallet", () =>
    Effect.gen(function* () {
      const { userId, accountNumber } = yield* linkedUser
      const result = yield* receive(credit({ reference: unique("VA"), accountNumber }))
      assert.strictEqual(result.kind, "virtualaccount.credit")
      assert.strictEqual(result.outcome, "processed")
      assert.deepStrictEqual(yield* walletOf(userId), {
        coinBalance: 0,
        balances: [{ currency: "NGN", available: "4950.50" }]
      })
      assert.deepStrictEqual(yield* storedOutcome(result.eventId), ["processed", null])
    })
  )

  it.effect("a credit whose posting the ledger already holds is stored as processed, already credited", () =>
    Effect.gen(function* () {
      const { userId, accountNumber } = yield* linkedUser
      const reference = unique("VA")
      // The ledger has this deposit (its key) but the inbox has no event for it: the event is
      // decided and stored as processed, and the posting's answer corrects its reason.
      const ledger = yield* Ledger
      yield* ledger.post(
        Result.getOrThrow(Movements.deposit({ reference, userId, currency: "NGN", amount: dec("4950.50") }))
      )
      const result = yield* receive(credit({ reference, accountNumber }))
      assert.deepStrictEqual([result.outcome, result.reason], ["processed", "already credited by reconciliation"])
      assert.deepStrictEqual(yield* storedOutcome(result.eventId), ["processed", "already credited by reconciliation"])
      assert.strictEqual(yield* cash(userId), "4950.50")
      assert.deepStrictEqual(yield* ledger.reconcile, [])
    })
  )

  it.effect(
    "the inbox stores the held outcome with the event, in the same write, when the ledger has its posting",
    () =>
      Effect.gen(function* () {
        const inbox = yield* WebhookInbox
        const ledger = yield* Ledger
        const recorder = yield* LedgerRecorder
        const userId = unique("user") as UserId
        const settled = { outcome: "processed" as const, reason: null, processedAt: new Date() }
        const held = { outcome: "processed" as const, reason: "held already" }

        const heldReference = unique("held")
        yield* ledger.post(inboxDeposit(userId, heldReference).transaction)
        const stored = yield* recorder.record(
          inbox.credit(inboxEvent(heldReference), settled, held),
          inboxDeposit(userId, heldReference)
        )
        assert.strictEqual(stored._tag, "Stored")
        assert.isFalse(stored._tag === "Stored" && stored.posted)
        assert.deepStrictEqual([stored.event.outcome, stored.event.reason], ["processed", "held already"])
        assert.deepStrictEqual(yield* storedOutcome(stored.event.id), ["processed", "held already"])

        const newReference = unique("new")
        const fresh = yield* recorder.record(
          inbox.credit(inboxEvent(newReference), settled, held),
          inboxDeposit(userId, newReference)
        )
        assert.isTrue(fresh._tag === "Stored" && fresh.posted)
        assert.deepStrictEqual(yield* storedOutcome(fresh.event.id), ["processed", null])
        assert.strictEqual(yield* cash(userId), "20.00")
      })
  )

  it.effect("without a held outcome the inbox stores the settled one, whether or not the ledger has the posting", () =>
    Effect.gen(function* () {
      const inbox = yield* WebhookInbox
      const ledger = yield* Ledger
      const recorder = yield* LedgerRecorder
      const userId = unique("user") as UserId
      const settled = { outcome: "processed" as const, reason: "settled", processedAt: new Date() }

      const newReference = unique("new")
      const fresh = yield* recorder.record(
        inbox.credit(inboxEvent(newReference), settled),
        inboxDeposit(userId, newReference)
      )
      assert.isTrue(fresh._tag === "Stored" && fresh.posted)
      assert.deepStrictEqual(yield* storedOutcome(fresh.event.id), ["processed", "settled"])

      const heldReference = unique("held")
      yield* ledger.post(inboxDeposit(userId, heldReference).transaction)
      const stored = yield* recorder.record(
        inbox.credit(inboxEvent(heldReference), settled),
        inboxDeposit(userId, heldReference)
      )
      assert.isTrue(stored._tag === "Stored" && !stored.posted)
      assert.deepStrictEqual(yield* storedOutcome(stored.event.id), ["processed", "settled"])
      assert.strictEqual(yield* cash(userId), "20.00")
    })
  )

  it.effect("a redelivery changes nothing", () =>
    Effect.gen(function* () {
      const { userId, accountNumber } = yield* linkedUser
      const payload = credit({ reference: unique("VA"), accountNumber })
      const first = yield* receive(payload)
      const again = yield* receive(payload, "another-signature")
      assert.strictEqual(again.outcome, "duplicate")
      assert.strictEqual(again.eventId, first.eventId)
      // Same money-relevant fields, written differently (numbers for strings, another narration
      // and date, keys reordered): the same event, not a conflict.
      const { data, ...envelope } = payload
      const reserialised = yield* receive({
        data: { ...data, amount: 5000.75, fee: "50.250", settled_amount: "4950.50", narration: "x", date: "later" },
        ...envelope
      })
      assert.strictEqual(reserialised.outcome, "duplicate")
      assert.strictEqual(reserialised.eventId, first.eventId)
      // Same reference, different amount: still nothing moves (see the conflict test).
      const altered = yield* receive({ ...payload, data: { ...data, amount: 1, fee: "0", settled_amount: 1 } })
      assert.strictEqual(altered.outcome, "conflict")
      assert.strictEqual(yield* cash(userId), "4950.50")
      const ledger = yield* Ledger
      assert.deepStrictEqual(yield* ledger.reconcile, [])
    })
  )

  it.effect("a redelivery with other money-relevant fields is stored as a conflict and never applied", () =>
    Effect.gen(function* () {
      const banking = yield* BankingService
      const inbox = yield* WebhookInbox
      const { userId, accountNumber } = yield* linkedUser
      const reference = unique("VA")
      const payload = credit({ reference, accountNumber, amount: "100.00", fee: "0", settled: "100.00" })
      const first = yield* receive(payload)
      assert.strictEqual(first.outcome, "processed")

      const other = bytes(credit({ reference, accountNumber, amount: "900.00", fee: "0", settled: "900.00" }))
      const conflict = yield* receive(other, "sig-conflict")
      assert.strictEqual(conflict.outcome, "conflict")
      assert.notStrictEqual(conflict.eventId, first.eventId)
      assert.include(conflict.reason ?? "", first.eventId)
      assert.include(conflict.reason ?? "", "data.amount 100 -> 900")
      const kept = Option.getOrThrow(yield* inbox.find(conflict.eventId))
      assert.deepStrictEqual(
        [kept.outcome, kept.kind, kept.reference, kept.signature, kept.rawBody],
        ["conflict", "virtualaccount.credit", reference, "sig-conflict", other]
      )
      assert.isNotNull(kept.processedAt)

      // Each distinct conflict is kept once; another account or currency conflicts too.
      const elsewhere = yield* receive(
        credit({ reference, accountNumber: unique("VA"), amount: "100", fee: "0", settled: 100 })
      )
      assert.strictEqual(elsewhere.outcome, "conflict")
      assert.include(elsewhere.reason ?? "", "account")
      // The same conflict again (issue 34) is answered with the row kept for it, and adds none.
      const again = yield* receive(other, "sig-again")
      assert.deepStrictEqual(
        [again.outcome, again.eventId, again.reason],
        ["conflict", conflict.eventId, conflict.reason]
      )
      // The first event still owns the key: identical redeliveries are duplicates of it.
      const same = yield* receive(payload)
      assert.deepStrictEqual([same.outcome, same.eventId], ["duplicate", first.eventId])

      const conflicts = yield* inbox.list({ outcome: "conflict", limit: 10_000, offset: 0 })
      assert.deepStrictEqual(
        conflicts.filter((event) => event.reference === reference).map((event) => event.id),
        [conflict.eventId, elsewhere.eventId]
      )
      // Not replayable, one by one or by status.
      const replayed = yield* banking.replay(conflict.eventId)
      assert.deepStrictEqual([replayed.replayed, replayed.outcome], [false, "conflict"])
      yield* banking.replayByStatus("unmatched")
      yield* banking.replayByStatus("rejected")
      assert.strictEqual(yield* cash(userId), "100.00")
      assert.strictEqual(Option.getOrThrow(yield* inbox.find(conflict.eventId)).outcome, "conflict")
      const ledger = yield* Ledger
      assert.deepStrictEqual(yield* ledger.reconcile, [])
    })
  )

  it.effect("concurrent deliveries of two bodies for one reference: one credit, the other body all conflicts", () =>
    Effect.gen(function* () {
      const { userId, accountNumber } = yield* linkedUser
      const reference = unique("VA")
      const small = bytes(credit({ reference, accountNumber, amount: 10, fee: "0", settled: 10 }))
      const large = bytes(credit({ reference, accountNumber, amount: 20, fee: "0", settled: 20 }))
      const results = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => receive(i % 2 === 0 ? small : large)),
        { concurrency: "unbounded" }
      )
      const processed = results.filter((result) => result.outcome === "processed")
      assert.strictEqual(processed.length, 1)
      const winner = results.indexOf(processed[0]!) % 2 === 0 ? "10.00" : "20.00"
      assert.strictEqual(results.filter((result) => result.outcome === "duplicate").length, 9)
      assert.strictEqual(results.filter((result) => result.outcome === "conflict").length, 10)
      assert.strictEqual(yield* cash(userId), winner)
    })
  )

  it.effect("a conflicting redelivery of an unmatched credit is not applied when the first is replayed", () =>
    Effect.gen(function* () {
      const banking = yield* BankingService
      const userId = unique("late") as UserId
      const accountNumber = unique("VA")
      const reference = unique("VA")
      const first = yield* receive(credit({ reference, accountNumber, amount: 10, fee: "0", settled: 10 }))
      assert.strictEqual(first.outcome, "unmatched")
      const conflict = yield* receive(credit({ reference, accountNumber, amount: 20, fee: "0", settled: 20 }))
      assert.strictEqual(conflict.outcome, "conflict")
      yield* banking.linkVirtualAccount(accountNumber, { userId, currency: "NGN" })
      assert.strictEqual((yield* banking.replay(conflict.eventId)).replayed, false)
      assert.strictEqual((yield* banking.replay(first.eventId)).outcome, "processed")
      assert.strictEqual(yield* cash(userId), "10.00")
    })
  )

  it.effect("50 concurrent identical deliveries credit once", () =>
    Effect.gen(function* () {
      const { userId, accountNumber } = yield* linkedUser
      const body = bytes(credit({ reference: unique("VA"), accountNumber, amount: 100, fee: "1.5", settled: 98.5 }))
      const results = yield* Effect.all(
        Array.from({ length: 50 }, () => receive(body)),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter((result) => result.outcome === "processed").length, 1)
      assert.strictEqual(results.filter((result) => result.outcome === "duplicate").length, 49)
      assert.strictEqual(new Set(results.map((result) => result.eventId)).size, 1)
      assert.strictEqual(yield* cash(userId), "98.50")
    })
  )

  it.effect("each broken rule parks the event with a reason and credits nothing", () =>
    Effect.gen(function* () {
      const { userId, accountNumber } = yield* linkedUser
      const cases: ReadonlyArray<readonly [Json, "rejected" | "unmatched", string]> = [
        [credit({ reference: unique("r"), accountNumber, data: { status: "FAILED" } }), "rejected", "data.status"],
        [credit({ reference: unique("r"), accountNumber, data: { type: "DEBIT" } }), "rejected", "data.type"],
        [credit({ reference: unique("r"), accountNumber, amount: 0, fee: "0", settled: 0 }), "rejected", "amount 0"],
        [credit({ reference: unique("r"), accountNumber, amount: -5, fee: "0", settled: -5 }), "rejected", "amount -5"],
        [credit({ reference: unique("r"), accountNumber, amount: 10, fee: "-1", settled: 11 }), "rejected", "fee -1"],
        [
          credit({ reference: unique("r"), accountNumber, amount: 10, fee: "1", settled: 9.5 }),
          "rejected",
          "settled_amount"
        ],
        [credit({ reference: unique("r"), accountNumber, currency: "USD" }), "rejected", "currency USD"],
        [
          credit({ reference: unique("r"), accountNumber, amount: "1.001", fee: "0", settled: "1.001" }),
          "rejected",
          "decimal"
        ],
        [credit({ reference: unique("r"), accountNumber: unique("nobody") }), "unmatched", "no virtual account"],
        [
          transferEvent({ outcome: "success", reference: unique("t"), amount: "10" }),
          "unmatched",
          "no outbound transfer"
        ]
      ]
      for (const [payload, outcome, reason] of cases) {
        const result = yield* receive(payload)
        assert.strictEqual(result.outcome, outcome, reason)
        assert.include(result.reason ?? "", reason)
        const [stored, storedReason] = yield* storedOutcome(result.eventId)
        assert.strictEqual(stored, outcome)
        assert.include(storedReason ?? "", reason)
      }
      assert.deepStrictEqual(yield* walletOf(userId), { coinBalance: 0, balances: [] })
    })
  )

  it.effect("an event without a flag is stored as ignored", () =>
    Effect.gen(function* () {
      const payload = { type: "VIRTUAL-ACCOUNT", event: "VIRTUAL-ACCOUNT-CREATED", data: { reference: unique("i") } }
      const result = yield* receive(payload)
      assert.strictEqual(result.kind, "ignored")
      assert.strictEqual(result.outcome, "ignored")
      assert.strictEqual((yield* receive(payload)).outcome, "duplicate")
    })
  )

  it.effect("replay after linking the missing account credits once; replaying again changes nothing", () =>
    Effect.gen(function* () {
      const banking = yield* BankingService
      const userId = unique("late") as UserId
      const accountNumber = unique("VA")
      const first = yield* receive(
        credit({ reference: unique("VA"), accountNumber, amount: 200, fee: "0", settled: 200 })
      )
      assert.strictEqual(first.outcome, "unmatched")
      const early = yield* banking.replay(first.eventId)
      assert.strictEqual(early.outcome, "unmatched")
      assert.isTrue(early.replayed)
      yield* banking.linkVirtualAccount(accountNumber, { userId, currency: "NGN" })
      const replayed = yield* banking.replay(first.eventId)
      assert.deepStrictEqual([replayed.replayed, replayed.outcome], [true, "processed"])
      assert.strictEqual(yield* cash(userId), "200.00")
      const again = yield* banking.replay(first.eventId)
      assert.deepStrictEqual([again.replayed, again.outcome], [false, "processed"])
      assert.strictEqual(yield* cash(userId), "200.00")
      const missing = yield* Effect.flip(banking.replay("00000000-0000-4000-8000-ffffffffffff"))
      assert.strictEqual(missing._tag, "WebhookEventNotFound")
      const garbage = yield* Effect.flip(banking.replay("not-a-uuid"))
      assert.strictEqual(garbage._tag, "WebhookEventNotFound")
    })
  )

  it.effect("replayByStatus runs every unmatched event once", () =>
    Effect.gen(function* () {
      const banking = yield* BankingService
      const userId = unique("bulk") as UserId
      const accountNumber = unique("VA")
      const references = [unique("b"), unique("b"), unique("b")]
      for (const reference of references) {
        yield* receive(credit({ reference, accountNumber, amount: 10, fee: "0", settled: 10 }))
      }
      yield* banking.linkVirtualAccount(accountNumber, { userId, currency: "NGN" })
      const results = yield* banking.replayByStatus("unmatched")
      const mine = results.filter((result) => references.includes(result.reference))
      assert.deepStrictEqual(
        mine.map((result) => result.outcome),
        ["processed", "processed", "processed"]
      )
      assert.strictEqual(yield* cash(userId), "30.00")
      const second = yield* banking.replayByStatus("unmatched")
      assert.strictEqual(second.filter((result) => references.includes(result.reference)).length, 0)
      assert.strictEqual(yield* cash(userId), "30.00")
    })
  )

  it.effect("transfer hold, then success: wallet → in flight → provider settlement", () =>
    Effect.gen(function* () {
      const banking = yield* BankingService
      const ledger = yield* Ledger
      const { userId } = yield* fundedUser("3000")
      const reference = unique("TRF")
      const inFlight0 = yield* ledger.balance(Account.transfersInFlight("NGN"))
      const settlement0 = yield* ledger.balance(Account.providerSettlement("NGN"))
      const recorded = yield* banking.recordTransfer({ reference, userId, currency: "NGN", amount: dec("2500.00") })
      assert.isTrue(recorded.created)
      assert.deepStrictEqual(
        [recorded.transfer.status, recorded.transfer.amount, recorded.transfer.currency],
        ["PENDING", "2500.00", "NGN"]
      )
      assert.strictEqual(yield* cash(userId), "500.00")
      const inFlight1 = yield* ledger.balance(Account.transfersInFlight("NGN"))
      assert.isTrue(BigDecimal.equals(BigDecimal.subtract(inFlight1.amount, inFlight0.amount), dec("2500")))

      const settled = yield* receive(transferEvent({ outcome: "success", reference, amount: "2500.00" }))
      assert.strictEqual(settled.outcome, "processed")
      assert.strictEqual(yield* cash(userId), "500.00")
      const inFlight2 = yield* ledger.balance(Account.transfersInFlight("NGN"))
      const settlement2 = yield* ledger.balance(Account.providerSettlement("NGN"))
      assert.isTrue(BigDecimal.equals(inFlight2.amount, inFlight0.amount))
      // The deposit took 3000 out of settlement (owed to us), the payout put 2500 back.
      assert.isTrue(BigDecimal.equals(BigDecimal.subtract(settlement2.amount, settlement0.amount), dec("2500")))
      const transfers = yield* banking.recordTransfer({ reference, userId, currency: "NGN", amount: dec("2500") })
      assert.deepStrictEqual([transfers.created, transfers.transfer.status], [false, "SETTLED"])

      // A second success (replayed or from another path) is a no-op; a late failure is parked.
      const late = yield* receive(transferEvent({ outcome: "failed", reference, amount: 2500 }))
      assert.strictEqual(late.outcome, "rejected")
      assert.include(late.reason ?? "", "already SETTLED")
      assert.strictEqual(yield* cash(userId), "500.00")
      assert.deepStrictEqual(yield* ledger.reconcile, [])
    })
  )

  it.effect("transfer failure returns the held funds", () =>
    Effect.gen(function* () {
      const banking = yield* BankingService
      const { userId } = yield* fundedUser("1200")
      const reference = unique("TRF")
      yield* banking.recordTransfer({ reference, userId, currency: "NGN", amount: dec("1200") })
      assert.strictEqual(yield* cash(userId), "0.00")
      const mismatched = yield* receive(transferEvent({ outcome: "failed", reference, amount: 1199.99 }))
      assert.strictEqual(mismatched.outcome, "rejected")
      assert.strictEqual(yield* cash(userId), "0.00")
      const failed = yield* receive(
        transferEvent({ outcome: "failed", reference: `${reference}`, amount: 1200, data: { narration: "retry" } })
      )
      // Same (kind, reference) as the mismatched one, another amount: kept as a conflict, never
      // applied. The operator fixes by replay of the first event, not by redelivery.
      assert.strictEqual(failed.outcome, "conflict")
      assert.strictEqual((yield* banking.replay(failed.eventId)).replayed, false)
      const replay = yield* banking.replay(mismatched.eventId)
      assert.strictEqual(replay.outcome, "rejected")

      const other = unique("TRF")
      yield* banking.recordTransfer({ reference: other, userId, currency: "NGN", amount: dec("0") }).pipe(Effect.flip)
      const { userId: second } = yield* fundedUser("700")
      yield* banking.recordTransfer({ reference: other, userId: second, currency: "NGN", amount: dec("700") })
      assert.strictEqual(yield* cash(second), "0.00")
      const returned = yield* receive(transferEvent({ outcome: "failed", reference: other, amount: "700" }))
      assert.strictEqual(returned.outcome, "processed")
      assert.strictEqual(yield* cash(second), "700.00")
      const status = yield* banking.recordTransfer({
        reference: other,
        userId: second,
        currency: "NGN",
        amount: dec("700.00")
      })
      assert.strictEqual(status.transfer.status, "FAILED")
      const successAfterFailure = yield* receive(transferEvent({ outcome: "success", reference: other, amount: "700" }))
      assert.strictEqual(successAfterFailure.outcome, "rejected")
      assert.strictEqual(yield* cash(second), "700.00")
    })
  )

  it.effect("a transfer event that arrives before its transfer is replayed once it is recorded", () =>
    Effect.gen(function* () {
      const banking = yield* BankingService
      const { userId } = yield* fundedUser("50")
      const reference = unique("TRF")
      const early = yield* receive(transferEvent({ outcome: "success", reference, amount: "50" }))
      assert.strictEqual(early.outcome, "unmatched")
      yield* banking.recordTransfer({ reference, userId, currency: "NGN", amount: dec("50") })
      const replayed = yield* banking.replay(early.eventId)
      assert.strictEqual(replayed.outcome, "processed")
      assert.strictEqual(yield* cash(userId), "0.00")
      const view = yield* banking.recordTransfer({ reference, userId, currency: "NGN", amount: dec("50") })
      assert.strictEqual(view.transfer.status, "SETTLED")
    })
  )

  it.effect("the ledger posts a transfer's settlement or return only when the transfer moves out of PENDING", () =>
    Effect.gen(function* () {
      const banking = yield* BankingService
      const transfers = yield* Transfers
      const recorder = yield* LedgerRecorder
      const ledger = yield* Ledger
      const { userId } = yield* fundedUser("100")
      const reference = unique("TRF")
      yield* banking.recordTransfer({ reference, userId, currency: "NGN", amount: dec("60") })
      const amount = dec("60")
      const settle = Result.getOrThrow(Movements.settle({ reference, currency: "NGN", amount }))
      const giveBack = Result.getOrThrow(Movements.returnHold({ reference, userId, currency: "NGN", amount }))
      const settled = yield* recorder.record(transfers.finished(reference, "SETTLED", new Date()), {
        transaction: settle
      })
      assert.strictEqual(Option.getOrThrow(settled).status, "SETTLED")
      assert.isTrue(Option.isSome(yield* ledger.find(settle.key)))
      // Settled already: the failure moves nothing, so its return is not posted (a key of its own).
      const failed = yield* recorder.record(transfers.finished(reference, "FAILED", new Date()), {
        transaction: giveBack
      })
      assert.isTrue(Option.isNone(failed))
      assert.isTrue(Option.isNone(yield* ledger.find(giveBack.key)))
      assert.strictEqual(yield* cash(userId), "40.00")
      assert.strictEqual(Option.getOrThrow(yield* transfers.find(reference)).status, "SETTLED")
      assert.deepStrictEqual(yield* ledger.reconcile, [])
    })
  )

  it.effect("record refuses a posting that takes from a user as a defect, writing nothing, its cause neither", () =>
    Effect.gen(function* () {
      const transfers = yield* Transfers
      const recorder = yield* LedgerRecorder
      const { userId } = yield* fundedUser("100")
      const reference = unique("TRF")
      const amount = dec("60")
      const hold = Result.getOrThrow(Movements.hold({ reference, userId, currency: "NGN", amount }))
      const exit = yield* Effect.exit(
        recorder.record(transfers.opened({ reference, userId, currency: "NGN", amount }), { transaction: hold })
      )
      assert.isTrue(Exit.hasDies(exit))
      assert.isTrue(Option.isNone(yield* transfers.find(reference)))
      assert.strictEqual(yield* cash(userId), "100.00")
      // recordDebit writes it, transfer and hold together.
      const opened = yield* recorder.recordDebit(transfers.opened({ reference, userId, currency: "NGN", amount }), hold)
      assert.isTrue(opened.created)
      assert.strictEqual(yield* cash(userId), "40.00")
    })
  )

  it.effect("recording a transfer: short funds, repeats, conflicts and bad amounts", () =>
    Effect.gen(function* () {
      const banking = yield* BankingService
      const { userId } = yield* fundedUser("100")
      const reference = unique("TRF")
      const short = yield* Effect.flip(
        banking.recordTransfer({ reference, userId, currency: "NGN", amount: dec("100.01") })
      )
      assert.strictEqual(short._tag, "InsufficientFunds")
      // Nothing was kept: the same reference can be recorded once funds allow.
      const ok = yield* banking.recordTransfer({ reference, userId, currency: "NGN", amount: dec("60") })
      assert.isTrue(ok.created)
      const same = yield* banking.recordTransfer({ reference, userId, currency: "NGN", amount: dec("60.00") })
      assert.isFalse(same.created)
      assert.strictEqual(yield* cash(userId), "40.00")
      const other = yield* Effect.flip(
        banking.recordTransfer({ reference, userId, currency: "NGN", amount: dec("61") })
      )
      assert.strictEqual(other._tag, "TransferConflict")
      const otherUser = yield* Effect.flip(
        banking.recordTransfer({ reference, userId: "someone" as UserId, currency: "NGN", amount: dec("60") })
      )
      assert.strictEqual(otherUser._tag, "TransferConflict")
      const precise = yield* Effect.flip(
        banking.recordTransfer({ reference: unique("T"), userId, currency: "NGN", amount: dec("1.001") })
      )
      assert.strictEqual(precise._tag, "InvalidAmount")
      const negative = yield* Effect.flip(
        banking.recordTransfer({ reference: unique("T"), userId, currency: "NGN", amount: dec("-1") })
      )
      assert.strictEqual(negative._tag, "InvalidAmount")
      assert.strictEqual(yield* cash(userId), "40.00")
    })
  )

  it.effect("linking a virtual account: created, unchanged, conflicts", () =>
    Effect.gen(function* () {
      const banking = yield* BankingService
      const accountNumber = unique("VA")
      const userId = unique("owner") as UserId
      const created = yield* banking.linkVirtualAccount(accountNumber, { userId, currency: "NGN", accountName: "ADA" })
      assert.isTrue(created.created)
      assert.deepStrictEqual(
        [
          created.account.accountNumber,
          created.account.userId,
          created.account.currency,
          created.account.accountName,
          created.account.bankName
        ],
        [accountNumber, userId, "NGN", "ADA", null]
      )
      const same = yield* banking.linkVirtualAccount(accountNumber, { userId, currency: "NGN" })
      assert.isFalse(same.created)
      const otherUser = yield* Effect.flip(
        banking.linkVirtualAccount(accountNumber, { userId: "other" as UserId, currency: "NGN" })
      )
      assert.strictEqual(otherUser._tag, "VirtualAccountConflict")
      const otherCurrency = yield* Effect.flip(banking.linkVirtualAccount(accountNumber, { userId, currency: "USD" }))
      assert.strictEqual(otherCurrency._tag, "VirtualAccountConflict")
      const concurrent = unique("VA")
      const results = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) =>
          Effect.result(banking.linkVirtualAccount(concurrent, { userId: `racer-${i % 2}` as UserId, currency: "NGN" }))
        ),
        { concurrency: "unbounded" }
      )
      const created1 = results.filter((result) => result._tag === "Success" && result.success.created)
      assert.strictEqual(created1.length, 1)
    })
  )

  it.effect("malformed JSON and schema violations are dead-lettered with their issues", () =>
    Effect.gen(function* () {
      const deadLetters = yield* DeadLetters
      const badJson = bytes(`{"data": {"reference": "${unique("x")}"`)
      const malformed = yield* Effect.flip(receive(badJson, "sig-json"))
      assert.strictEqual(malformed._tag, "MalformedWebhook")
      assert.strictEqual(malformed.message, "Malformed JSON")
      assert.strictEqual(malformed.issues[0]!.path, "")

      const payload = credit({ reference: unique("VA"), accountNumber: "1" })
      delete payload.virtualAccountCredit
      payload.virtualAccountCredit = "yes"
      const violation = yield* Effect.flip(receive(payload, "sig-schema"))
      assert.deepStrictEqual(
        violation.issues.map((issue) => issue.path),
        ["virtualAccountCredit"]
      )

      const twoFlags = yield* Effect.flip(
        receive(credit({ reference: unique("VA"), accountNumber: "1", top: { transferFailed: true } }))
      )
      assert.include(twoFlags.issues[0]!.message, "more than one event flag")

      const letters = yield* deadLetters.list({ limit: 200, offset: 0 })
      const byId = new Map(letters.map((letter) => [letter.id, letter]))
      const json = byId.get(malformed.deadLetterId)!
      assert.deepStrictEqual(json.rawBody, badJson)
      assert.strictEqual(json.signature, "sig-json")
      assert.include(json.error, "Malformed JSON")
      assert.include(byId.get(violation.deadLetterId)!.error, "virtualAccountCredit")
      assert.isTrue(byId.has(twoFlags.deadLetterId))

      const inbox = yield* WebhookInbox
      const stored = yield* inbox.list({ limit: 1000, offset: 0 })
      assert.isFalse(stored.some((event) => event.reference === (payload.data as Json).reference))
    })
  )

  it.effect("keeps the exact raw body and signature of every stored event", () =>
    Effect.gen(function* () {
      const inbox = yield* WebhookInbox
      const raw = bytes(`  ${JSON.stringify(credit({ reference: unique("VA"), accountNumber: unique("none") }))}\n`)
      const result = yield* receive(raw, "ABCDEF0123")
      const event = Option.getOrThrow(yield* inbox.find(result.eventId))
      assert.deepStrictEqual(event.rawBody, raw)
      assert.strictEqual(event.signature, "ABCDEF0123")
      assert.strictEqual(event.kind, "virtualaccount.credit")
      assert.strictEqual(event.dedupKey, `virtualaccount.credit:${event.reference}`)
      assert.isNotNull(event.processedAt)
    })
  )
}
