import { BigDecimal, Clock, Context, Effect, Layer, Metric, Result } from "effect"
import type { UserId } from "../auth/Model.ts"
import {
  type InsufficientFunds,
  type InvalidTransaction,
  Ledger,
  LedgerRecorder,
  type LedgerTransaction,
  Movements,
  UnitOfWork
} from "../ledger/index.ts"
import { isCurrency, Money } from "../money/index.ts"
import { NotificationOutbox } from "../notifications/NotificationOutbox.ts"
import { type NotifiedPosting, postNotified } from "../notifications/NotifiedPosting.ts"
import { DeadLetters } from "./DeadLetters.ts"
import { depositNotification } from "./DepositNotification.ts"
import {
  InvalidAmount,
  MalformedWebhook,
  TransferConflict,
  VirtualAccountConflict,
  WebhookEventNotFound
} from "./Errors.ts"
import type {
  LinkVirtualAccountRequest,
  NewWebhookEvent,
  Outcome,
  ReceiveResult,
  RecordTransferRequest,
  ReplayableOutcome,
  ReplayResult,
  Transfer,
  TransferView,
  VirtualAccount,
  VirtualAccountView,
  WalletView
} from "./Model.ts"
import { Transfers } from "./Transfers.ts"
import { VirtualAccounts } from "./VirtualAccounts.ts"
import { type FieldDifference, webhookAmount, webhookDifferences } from "./WebhookConflict.ts"
import { type DecodedWebhook, readWebhook } from "./WebhookDecoder.ts"
import { WebhookInbox } from "./WebhookInbox.ts"
import { creditAccountNumber, decideCredit, decideTransfer } from "./WebhookRules.ts"

export interface ReceiveInput {
  /** The exact bytes the provider signed; the signature has already been verified. */
  readonly rawBody: Uint8Array
  readonly signature: string
  readonly receivedAt: Date
}

export class BankingService extends Context.Service<
  BankingService,
  {
    /**
     * Takes a verified delivery: unreadable bodies are dead-lettered and fail with
     * `MalformedWebhook`; anything else is stored and applied atomically (a credit in one store, a
     * transfer in one unit of work). A redelivery
     * of a stored event changes nothing: when it agrees with the event on the money-relevant
     * fields it is not stored (`outcome: "duplicate"`); when it does not, it is stored as a
     * `conflict` event, logged at warning level and counted in `webhook_conflicts_total`, once per
     * distinct conflict: an identical conflicting redelivery adds no row and is not counted again.
     */
    receive(input: ReceiveInput): Effect.Effect<ReceiveResult, MalformedWebhook>
    /** Runs a stored `unmatched` or `rejected` event again; any other event is left as it is. */
    replay(eventId: string): Effect.Effect<ReplayResult, WebhookEventNotFound>
    replayByStatus(status: ReplayableOutcome): Effect.Effect<ReadonlyArray<ReplayResult>>
    linkVirtualAccount(
      accountNumber: string,
      request: LinkVirtualAccountRequest
    ): Effect.Effect<{ readonly created: boolean; readonly account: VirtualAccountView }, VirtualAccountConflict>
    /** Records an outbound transfer and holds its amount from the wallet until the provider reports. */
    recordTransfer(
      request: RecordTransferRequest
    ): Effect.Effect<
      { readonly created: boolean; readonly transfer: TransferView },
      TransferConflict | InsufficientFunds | InvalidAmount
    >
    wallet(userId: UserId): Effect.Effect<WalletView>
  }
>()("@payments-gaming/domain/banking/BankingService") {
  /** Needs the ledger and its recorder, a unit of work, the banking repositories and the notification outbox. */
  static readonly layer: Layer.Layer<
    BankingService,
    never,
    Ledger | LedgerRecorder | UnitOfWork | WebhookInbox | DeadLetters | VirtualAccounts | Transfers | NotificationOutbox
  > = Layer.effect(this, makeBankingService())
}

type Applied = { readonly outcome: Exclude<Outcome, "received" | "conflict">; readonly reason: string | null }

/** Redeliveries that disagree with the stored event of their (kind, reference), by kind. */
const webhookConflicts = Metric.counter("webhook_conflicts_total", {
  description: "Webhook redeliveries whose money-relevant fields differ from the stored event, by kind",
  incremental: true
})

/** What `receive` did, and what a conflict's log line needs once the unit of work has committed. */
interface Received {
  readonly result: ReceiveResult
  readonly conflict: {
    readonly storedEventId: string
    readonly storedAmount: string | null
    readonly differences: ReadonlyArray<FieldDifference>
    /** The same conflict was kept already (by an identical redelivery): nothing new was stored. */
    readonly repeated: boolean
  } | null
}

const describeDifferences = (differences: ReadonlyArray<FieldDifference>) =>
  differences.map(({ field, stored, received }) => `${field} ${stored} -> ${received}`).join(", ")

export const toVirtualAccountView = (account: VirtualAccount): VirtualAccountView => ({
  accountNumber: account.accountNumber,
  userId: account.userId,
  currency: account.currency,
  accountName: account.accountName,
  bankName: account.bankName,
  createdAt: account.createdAt.toISOString()
})

export const toTransferView = (transfer: Transfer): TransferView => ({
  reference: transfer.reference,
  userId: transfer.userId,
  amount: Money.format(Money.make(transfer.currency, transfer.amount)),
  currency: transfer.currency,
  status: transfer.status,
  createdAt: transfer.createdAt.toISOString(),
  updatedAt: transfer.updatedAt.toISOString()
})

// Amounts reaching a builder were validated already: a refusal here is a bug, not an outcome.
const built = (transaction: Result.Result<LedgerTransaction.LedgerTransaction, InvalidTransaction>) =>
  Result.isSuccess(transaction) ? Effect.succeed(transaction.success) : Effect.die(transaction.failure)

const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

function makeBankingService() {
  return Effect.gen(function* () {
    const ledger = yield* Ledger
    const recorder = yield* LedgerRecorder
    const unitOfWork = yield* UnitOfWork
    const inbox = yield* WebhookInbox
    const deadLetters = yield* DeadLetters
    const virtualAccounts = yield* VirtualAccounts
    const transfers = yield* Transfers
    const outbox = yield* NotificationOutbox

    /**
     * What an event will do, decided before it is stored: the reads its rules need (the virtual
     * account, or the transfer, locked) and the rules themselves. `settled` is the outcome stored
     * with the event. A deposit's `posting` is written with the event, atomically, by the ledger
     * (`WebhookInbox.credit`); a transfer's `act` is the work to do once the event is stored. Either
     * may correct the outcome: a deposit the ledger already holds is "already credited by reconciliation".
     */
    interface Plan {
      readonly settled: Applied
      readonly posting?: NotifiedPosting
      readonly act?: Effect.Effect<Applied>
    }

    // The one way a deposit reaches the ledger before its event is stored is a settlement
    // reconciliation's `credit` resolve (ReconciliationService), which posts under this same key:
    // the late webhook is stored with this reason, saying who credited it (docs/operations.md).
    const alreadyCredited: Applied = { outcome: "processed", reason: "already credited by reconciliation" }

    /** A deposit's posting and notification for an event stored already (a replay), in its unit of work. */
    const postDeposit = (posting: NotifiedPosting): Effect.Effect<Applied> =>
      Effect.map(postNotified(ledger, outbox, posting), (created) =>
        created ? { outcome: "processed", reason: null } : alreadyCredited
      )

    const settled = (applied: Applied): Plan => ({ settled: applied })

    const planCredit = Effect.fnUntraced(function* (
      event: Extract<DecodedWebhook, { kind: "virtualaccount.credit" }>
    ): Effect.fn.Return<Plan> {
      const account = yield* virtualAccounts.find(creditAccountNumber(event.payload))
      const decision = decideCredit(event.payload, account)
      if (decision._tag === "Reject") return settled({ outcome: "rejected", reason: decision.reason })
      if (decision._tag === "Unmatched") return settled({ outcome: "unmatched", reason: decision.reason })
      const { userId, currency, amount } = decision.action
      return {
        settled: { outcome: "processed", reason: null },
        // Committed with the event, so the user hears of exactly the credits that commit (a row
        // per active device), and the answer never waits on a push: the worker sends it.
        posting: {
          transaction: yield* built(Movements.deposit({ reference: event.reference, userId, currency, amount })),
          notification: depositNotification({
            reference: event.reference,
            payload: event.payload,
            userId,
            currency,
            amount
          })
        }
      }
    })

    // A settled transfer's hold is settled, a failed one's given back, each with the transfer's
    // new status. Made once, not generators per webhook (docs/architecture.md).
    const settleTransfer = Effect.fnUntraced(function* ({ reference, currency, amount }: Transfer) {
      const settlement = yield* built(Movements.settle({ reference, currency, amount }))
      yield* recorder.record(transfers.finished(reference, "SETTLED", yield* now), { transaction: settlement })
    })
    const returnTransfer = Effect.fnUntraced(function* ({ reference, userId, currency, amount }: Transfer) {
      const given = yield* built(Movements.returnHold({ reference, userId, currency, amount }))
      yield* recorder.record(transfers.finished(reference, "FAILED", yield* now), { transaction: given })
    })

    const planTransfer = Effect.fnUntraced(function* (
      event: Extract<DecodedWebhook, { kind: "transfer.success" | "transfer.failed" }>
    ): Effect.fn.Return<Plan> {
      const transfer = yield* transfers.findForUpdate(event.reference)
      const decision = decideTransfer(event.kind, event.payload, transfer)
      if (decision._tag === "Reject") return settled({ outcome: "rejected", reason: decision.reason })
      if (decision._tag === "Unmatched") return settled({ outcome: "unmatched", reason: decision.reason })
      const action = decision.action
      const processed: Applied = { outcome: "processed", reason: null }
      switch (action._tag) {
        case "AlreadyFinal":
          return settled({ outcome: "processed", reason: `transfer already ${action.transfer.status}` })
        case "Settle":
          // The transfer moves on, and its hold is settled (or given back) with it, by the ledger: a
          // settlement or a return only credits, so nothing can refuse it.
          return {
            settled: processed,
            act: Effect.as(settleTransfer(action.transfer), processed)
          }
        case "Return":
          return {
            settled: processed,
            act: Effect.as(returnTransfer(action.transfer), processed)
          }
      }
    })

    const plan = (event: DecodedWebhook): Effect.Effect<Plan> => {
      switch (event.kind) {
        case "ignored":
          return Effect.succeed(
            settled({ outcome: "ignored", reason: `no event flag set (event ${event.payload.event})` })
          )
        case "virtualaccount.credit":
          return planCredit(event)
        case "transfer.success":
        case "transfer.failed":
          return planTransfer(event)
      }
    }

    /** Plans and acts at once: for a replay, whose event is stored already. */
    const apply = (event: DecodedWebhook): Effect.Effect<Applied> =>
      Effect.flatMap(plan(event), (planned) =>
        planned.posting !== undefined ? postDeposit(planned.posting) : (planned.act ?? Effect.succeed(planned.settled))
      )

    // Run inside the delivery's unit of work, when it needs one (see `receive`).
    const storeAndApply = Effect.fnUntraced(function* (
      event: DecodedWebhook,
      incoming: NewWebhookEvent
    ): Effect.fn.Return<Received> {
      // Decided first and stored with its outcome: one statement fewer than storing it as received
      // and marking it afterwards (issue 16). For a redelivery the reads were for nothing, which is
      // rare; its transfer, when it names one, stays locked to the end of the unit, as before.
      const planned = yield* plan(event)
      const processedAt = yield* now
      const outcome = { ...planned.settled, processedAt }
      const stored = yield* planned.posting === undefined
        ? inbox.store(incoming, outcome)
        : recorder.record(inbox.credit(incoming, outcome, alreadyCredited), {
            transaction: planned.posting.transaction,
            notice: planned.posting.notification && outbox.notice(planned.posting.notification)
          })
      const base = { eventId: stored.event.id, kind: event.kind, reference: event.reference }
      if (stored._tag === "Stored") {
        if (planned.posting !== undefined && !stored.posted) {
          // The ledger held this deposit before its event was stored; the store wrote that with the
          // event. Only a post of the same deposit racing the store leaves it to be said here.
          if (stored.event.reason !== alreadyCredited.reason) {
            yield* inbox.markOutcome(stored.event.id, alreadyCredited.outcome, alreadyCredited.reason, processedAt)
          }
          return { result: { ...base, ...alreadyCredited }, conflict: null }
        }
        if (planned.act === undefined) return { result: { ...base, ...planned.settled }, conflict: null }
        const applied = yield* planned.act
        if (applied.outcome !== planned.settled.outcome || applied.reason !== planned.settled.reason) {
          yield* inbox.markOutcome(stored.event.id, applied.outcome, applied.reason, processedAt)
        }
        return { result: { ...base, ...applied }, conflict: null }
      }
      // The stored body decoded when it was stored; if it no longer does, agreement cannot be
      // shown, so the redelivery is kept for an operator rather than dropped.
      const before = readWebhook(stored.event.rawBody)
      const differences = Result.isSuccess(before)
        ? webhookDifferences(before.success, event)
        : [{ field: "body", stored: "no longer decodes", received: "decodes" }]
      if (differences.length === 0) return { result: { ...base, outcome: "duplicate", reason: null }, conflict: null }
      const reason = `differs from event ${stored.event.id}: ${describeDifferences(differences)}`
      const kept = yield* inbox.storeConflict(incoming, reason, yield* now)
      return {
        result: { ...base, eventId: kept.event.id, outcome: "conflict", reason },
        conflict: {
          storedEventId: stored.event.id,
          storedAmount: Result.isSuccess(before) ? webhookAmount(before.success) : null,
          differences,
          repeated: kept.repeated
        }
      }
    })

    // Untraced, like the other entry points on the hot paths of issue 8's benchmark (credits, spins,
    // wheel views, card registrations): a traced Effect.fn made each statement under it dearer, 15%
    // of a credit's CPU in-process (docs/benchmarks.md). The HTTP request and each SQL statement
    // keep their spans; the rarer operations below keep theirs.
    const receive = Effect.fnUntraced(function* (input: ReceiveInput) {
      const read = readWebhook(input.rawBody)
      if (Result.isFailure(read)) {
        const { message, issues } = read.failure
        const letter = yield* deadLetters.add({
          rawBody: input.rawBody,
          signature: input.signature,
          receivedAt: input.receivedAt,
          error: `${message}: ${issues.map((issue) => `${issue.path || "(root)"}: ${issue.message}`).join("; ")}`
        })
        return yield* new MalformedWebhook({ message, issues, deadLetterId: letter.id })
      }
      const event = read.success
      const delivery = storeAndApply(event, {
        kind: event.kind,
        reference: event.reference,
        dedupKey: event.dedupKey,
        rawBody: input.rawBody,
        signature: input.signature,
        receivedAt: input.receivedAt
      })
      // A transfer's event is decided with its transfer row locked, to the end of a transaction. A
      // credit needs none (issue 16): its one read, the virtual account, is a link that never
      // changes once made, and its writes are one atomic store, keyed by the event's dedup key (an
      // event with no flag set only stores itself). Run again after a lost connection, a stored
      // delivery comes back as a duplicate of itself, and a conflicting one as a repeat of itself.
      const outcome = yield* event.kind === "transfer.success" || event.kind === "transfer.failed"
        ? unitOfWork.transaction(delivery)
        : unitOfWork.idempotent(delivery)
      // After the commit, so a rolled-back delivery is neither logged nor counted as a conflict.
      if (outcome.conflict?.repeated === true) {
        yield* Effect.logInfo(
          `Conflicting webhook redelivered again: ${event.kind} ${event.reference} is kept as event ` +
            `${outcome.result.eventId} already; nothing stored, nothing applied`
        )
      } else if (outcome.conflict !== null) {
        const { storedEventId, storedAmount, differences } = outcome.conflict
        yield* Metric.update(Metric.withAttributes(webhookConflicts, { kind: event.kind }), 1)
        yield* Effect.logWarning(
          `Conflicting webhook redelivery: ${event.kind} ${event.reference} was stored as event ` +
            `${storedEventId} with amount ${storedAmount ?? "(none)"}, redelivered with amount ` +
            `${webhookAmount(event) ?? "(none)"}; kept as event ${outcome.result.eventId}, nothing applied`,
          {
            eventId: outcome.result.eventId,
            storedEventId,
            kind: event.kind,
            reference: event.reference,
            storedAmount,
            receivedAmount: webhookAmount(event),
            differences: differences.map((difference) => difference.field)
          }
        )
      }
      return outcome.result
    })

    // The replay's reads and writes, in its unit of work: made once (docs/architecture.md).
    const replayLocked = Effect.fnUntraced(function* (eventId: string) {
      const found = yield* inbox.findForUpdate(eventId)
      if (found._tag === "None") {
        return yield* new WebhookEventNotFound({ eventId, message: `no webhook event ${eventId}` })
      }
      const event = found.value
      const base = { eventId: event.id, kind: event.kind, reference: event.reference }
      // Only these two wait on a cause an operator can fix; `conflict` in particular never
      // applies: its (kind, reference) belongs to the first event.
      if (event.outcome !== "unmatched" && event.outcome !== "rejected") {
        return { ...base, replayed: false, outcome: event.outcome, reason: event.reason }
      }
      const read = readWebhook(event.rawBody)
      const applied: Applied = Result.isFailure(read)
        ? { outcome: "rejected", reason: `the stored body no longer decodes: ${read.failure.message}` }
        : read.success.kind !== event.kind || read.success.reference !== event.reference
          ? { outcome: "rejected", reason: `the stored body now reads as ${read.success.dedupKey}` }
          : yield* apply(read.success)
      yield* inbox.markOutcome(event.id, applied.outcome, applied.reason, yield* now)
      return { ...base, replayed: true, ...applied }
    })

    const replay = Effect.fn("BankingService.replay")((eventId: string) =>
      unitOfWork.transaction(replayLocked(eventId))
    )

    const pageSize = 200

    const replayByStatus = Effect.fn("BankingService.replayByStatus")(function* (status: ReplayableOutcome) {
      // Ids are gathered before replaying, so events that stay in the status are not met again.
      const ids: Array<string> = []
      for (let offset = 0; ; offset += pageSize) {
        const page = yield* inbox.list({ outcome: status, limit: pageSize, offset })
        ids.push(...page.map((event) => event.id))
        if (page.length < pageSize) break
      }
      const results: Array<ReplayResult> = []
      for (const id of ids) {
        const result = yield* replay(id).pipe(Effect.option)
        if (result._tag === "Some") results.push(result.value)
      }
      return results
    })

    const linkVirtualAccount = Effect.fn("BankingService.linkVirtualAccount")(function* (
      accountNumber: string,
      request: LinkVirtualAccountRequest
    ) {
      const { created, account } = yield* virtualAccounts.insert({
        accountNumber,
        userId: request.userId,
        currency: request.currency,
        accountName: request.accountName ?? null,
        bankName: request.bankName ?? null
      })
      if (!created && account.userId !== request.userId) {
        return yield* new VirtualAccountConflict({
          accountNumber,
          message: `virtual account ${accountNumber} is already linked to another user`
        })
      }
      if (!created && account.currency !== request.currency) {
        return yield* new VirtualAccountConflict({
          accountNumber,
          message: `virtual account ${accountNumber} is already linked in ${account.currency}`
        })
      }
      return { created, account: toVirtualAccountView(account) }
    })

    // The transfer and its hold, in the transfer's unit of work: made once (docs/architecture.md).
    const holdAndOpen = Effect.fnUntraced(function* ({ reference, userId, currency, amount }: RecordTransferRequest) {
      // The transfer and its hold in one write of the ledger's: held only when the transfer is new.
      const hold = yield* built(Movements.hold({ reference, userId, currency, amount }))
      const stored = yield* recorder.recordDebit(transfers.opened({ reference, userId, currency, amount }), hold)
      const transfer = stored.transfer
      if (!stored.created) {
        const same =
          transfer.userId === userId && transfer.currency === currency && BigDecimal.equals(transfer.amount, amount)
        if (!same) {
          return yield* new TransferConflict({
            reference,
            message: `transfer ${reference} is already recorded with other details`
          })
        }
        return { created: false, transfer: toTransferView(transfer) }
      }
      return { created: true, transfer: toTransferView(transfer) }
    })

    const recordTransfer = Effect.fn("BankingService.recordTransfer")(function* (request: RecordTransferRequest) {
      const { currency, amount } = request
      if (!BigDecimal.isPositive(amount)) {
        return yield* new InvalidAmount({ message: `amount ${BigDecimal.format(amount)} must be greater than 0` })
      }
      const minor = Money.toMinorUnits(Money.make(currency, amount))
      if (Result.isFailure(minor)) return yield* new InvalidAmount({ message: minor.failure.message })
      return yield* unitOfWork.transaction(holdAndOpen(request))
    })

    const wallet = Effect.fn("BankingService.wallet")(function* (userId: UserId) {
      const balances = yield* ledger.balances(userId)
      return {
        coinBalance: Number(balances.coins),
        balances: balances.cash.flatMap((money) =>
          isCurrency(money.currency) ? [{ currency: money.currency, available: Money.format(money) }] : []
        )
      }
    })

    return BankingService.of({
      receive,
      replay,
      replayByStatus,
      linkVirtualAccount,
      recordTransfer,
      wallet
    })
  })
}
