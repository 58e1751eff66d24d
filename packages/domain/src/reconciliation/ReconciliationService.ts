import { BigDecimal, Clock, Context, Effect, Layer, Metric, Option, Result, Schedule } from "effect"
import type { Outcome } from "../banking/Model.ts"
import { settlementFacts } from "../banking/SettlementFacts.ts"
import { VirtualAccounts } from "../banking/VirtualAccounts.ts"
import { Ledger, Movements, UnitOfWork } from "../ledger/index.ts"
import { depositKey } from "../ledger/LedgerKeys.ts"
import { isCurrency, Money } from "../money/index.ts"
import { NotificationOutbox } from "../notifications/NotificationOutbox.ts"
import { postNotified } from "../notifications/NotifiedPosting.ts"
import { depositReceived } from "../notifications/Templates.ts"
import { BreakAlreadyResolved, BreakNotFound, CreditRefused, InvalidReport, ReconciliationNotFound } from "./Errors.ts"
import { isApplied, judgeLine, type StoredEventFacts } from "./Matching.ts"
import { type BreakKind, MAX_REPORT_BYTES } from "./Model.ts"
import {
  type EventForMatching,
  type NewBreak,
  type ReconciliationPosition,
  Reconciliations
} from "./Reconciliations.ts"
import {
  type BreakLedger,
  type BreakReport,
  type BreakStatus,
  type BreakView,
  noBreaks,
  type ReconciliationView,
  type ResolveAction,
  toBreakView,
  toReconciliationView
} from "./Records.ts"
import { reportBatches, withProblems } from "./ReportBatches.ts"
import type { LineError, ReportKind, ReportLine } from "./ReportLine.ts"
import type { ReportSummary } from "./ReportReader.ts"

/** Lines matched per query, and breaks written per statement: what an import holds at once. */
export const IMPORT_BATCH = 1000

/**
 * How far before the settlement day an applied event may have been received and still be looked
 * at for `missing_in_report`: a day, for clocks and time zones. An event cannot arrive before its
 * transaction happened, so nothing received earlier than that can be dated on the day; the scan
 * reads the inbox from there on (an index on received_at), not the whole inbox.
 */
const RECEIVED_BEFORE_DAY_MS = 24 * 60 * 60 * 1000

const SHA256_HEX = /^[0-9a-f]{64}$/

export interface ImportInput {
  /** The settlement day (UTC) the report covers, `YYYY-MM-DD`, decoded as `SettlementDate` already. */
  readonly date: string
  /** The body as received: at most 10 MiB (the caller refuses more before reading it all). */
  readonly bytes: Uint8Array
  /** Lowercase hex SHA-256 of `bytes`, computed by the caller (the domain has no digest). */
  readonly sha256: string
}

export interface ImportResult {
  /** False when the same bytes were imported for the same date before: `reconciliation` is that one. */
  readonly created: boolean
  readonly reconciliation: ReconciliationView
}

export interface Page<Item, Position> {
  readonly items: ReadonlyArray<Item>
  /** Where the next page starts; null on the last page. The caller makes it an opaque cursor. */
  readonly next: Position | null
}

export interface ResolveInput {
  readonly reconciliationId: string
  readonly breakId: string
  readonly action: ResolveAction
  /** 1 to 500 characters, decoded as `ResolutionNote` already. */
  readonly note: string
  /** The caller's subject (the token's `sub`). */
  readonly by: string
}

/** Open breaks of every reconciliation, by kind; refreshed from the store (see `observe`). */
export const breaksOpen = Metric.gauge("reconciliation_breaks_open", {
  description: "Open settlement reconciliation breaks, by kind"
})

const KINDS: ReadonlyArray<BreakKind> = ["missing_in_ledger", "missing_in_report", "amount_mismatch", "status_mismatch"]

/** How often every instance reads the open breaks again, so a resolve on another instance shows. */
const OBSERVE_EVERY = "1 minute"

/**
 * Settlement reconciliation (CONTRACT §7): import a provider's daily report, list what differs
 * from the ledger, and resolve it. The HTTP and CLI edges decode their input with the schemas of
 * Records.ts and Model.ts (`SettlementDate`, `ResolveRequest`) and call these.
 */
export class ReconciliationService extends Context.Service<
  ReconciliationService,
  {
    /**
     * Reads the report strictly (a bad file fails with `InvalidReport`, storing nothing), matches it
     * in batches of `IMPORT_BATCH` lines against the stored events, and stores the reconciliation
     * with its breaks in one unit of work. The same bytes for the same date again (even at the same
     * moment, from another process) answer the first reconciliation, `created: false`. Logs one
     * line with the counts; refreshes `reconciliation_breaks_open`.
     */
    import(input: ImportInput): Effect.Effect<ImportResult, InvalidReport>
    /** Newest first, `limit` (1 to 200) at a time, after `after`. */
    list(filter: {
      readonly after?: ReconciliationPosition | undefined
      readonly limit: number
    }): Effect.Effect<Page<ReconciliationView, ReconciliationPosition>>
    get(id: string): Effect.Effect<ReconciliationView, ReconciliationNotFound>
    /** Its breaks in the report's order (missing_in_report last), `limit` at a time, after the ordinal `after`. */
    breaks(
      id: string,
      filter: {
        readonly kind?: BreakKind | undefined
        readonly status?: BreakStatus | undefined
        readonly after?: number | undefined
        readonly limit: number
      }
    ): Effect.Effect<Page<BreakView, number>, ReconciliationNotFound>
    /**
     * Resolves an open break. `accept` records the note; `credit` (an open `missing_in_ledger`
     * break of a `virtualaccount.credit` line only) credits the owner of the line's account with
     * its settled amount under the deposit's ledger key, the one a webhook of that reference
     * posts under (`Movements.deposit`), with the user's deposit notification; a webhook arriving
     * afterwards finds the posting held and credits nothing. The break is locked for the unit of
     * work, so concurrent resolves resolve once; the ledger key guards the credit a second time.
     */
    resolve(input: ResolveInput): Effect.Effect<BreakView, BreakNotFound | BreakAlreadyResolved | CreditRefused>
    /** Reads the open breaks from the store into `reconciliation_breaks_open`. */
    readonly observe: Effect.Effect<void>
  }
>()("@payments-gaming/domain/reconciliation/ReconciliationService") {
  /**
   * Needs its store, the ledger, a unit of work, the virtual accounts and the notification outbox.
   * Refreshes the gauge when built and every minute while it lives, besides after each import and
   * resolve: so the gauge is right after a restart and, within a minute, on every instance.
   */
  static readonly layer: Layer.Layer<
    ReconciliationService,
    never,
    Reconciliations | Ledger | UnitOfWork | VirtualAccounts | NotificationOutbox
  > = Layer.effect(this, makeReconciliationService())
}

const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

const amountText = (currency: string, amount: BigDecimal.BigDecimal | null): string | null =>
  amount === null ? null : isCurrency(currency) ? Money.format(Money.make(currency, amount)) : BigDecimal.format(amount)

/** What a stored event says, read from its body; a body that no longer decodes says nothing. */
const factsOf = (event: EventForMatching): StoredEventFacts & { readonly date: string | null } => {
  const blank = {
    eventId: event.id,
    outcome: event.outcome,
    amount: null,
    settledAmount: null,
    currency: null,
    accountNumber: null,
    date: null
  }
  const facts = settlementFacts(event.kind, event.rawBody)
  return facts === undefined ? blank : { ...blank, ...facts }
}

const ledgerOf = (facts: StoredEventFacts & { readonly outcome: Outcome }): BreakLedger => ({
  eventId: facts.eventId,
  outcome: facts.outcome,
  amount: facts.currency === null ? null : amountText(facts.currency, facts.amount),
  settledAmount: facts.currency === null ? null : amountText(facts.currency, facts.settledAmount),
  currency: facts.currency,
  accountNumber: facts.accountNumber
})

const reportOf = (line: ReportLine): BreakReport => ({
  line: line.line,
  amount: Money.format(Money.make(line.currency, line.amount)),
  fee: line.fee === null ? null : Money.format(Money.make(line.currency, line.fee)),
  settledAmount: line.settledAmount === null ? null : Money.format(Money.make(line.currency, line.settledAmount)),
  currency: line.currency,
  accountNumber: line.accountNumber,
  settledAt: line.settledAt.toISOString()
})

/** True when `date` (any ISO 8601 form the provider writes) falls on the UTC day `day`. */
const fallsOn = (date: string | null, day: string): boolean => {
  if (date === null) return false
  const at = new Date(date)
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === day
}

const keyOf = (kind: string, reference: string) => `${kind}\u0000${reference}`

/**
 * First pass over a report: its problems of form, one batch at a time, nothing kept but the
 * summary. A (kind, reference) named twice is found by the second pass, through the store.
 */
const checkForm = (bytes: Uint8Array): ReportSummary => {
  const batches = reportBatches(bytes, IMPORT_BATCH)
  for (;;) {
    const next = batches.next()
    if (next.done === true) return next.value
  }
}

/** The `importId` a refused report's lines are named under: never stored, rolled back with the unit. */
const REFUSED_IMPORT = "00000000-0000-0000-0000-000000000000"

function makeReconciliationService() {
  return Effect.gen(function* () {
    const store = yield* Reconciliations
    const ledger = yield* Ledger
    const unitOfWork = yield* UnitOfWork
    const virtualAccounts = yield* VirtualAccounts
    const outbox = yield* NotificationOutbox

    const observe = Effect.flatMap(store.openBreaks, (counts) =>
      Effect.forEach(KINDS, (kind) => Metric.update(Metric.withAttributes(breaksOpen, { kind }), counts[kind]), {
        discard: true
      })
    )

    /**
     * The second pass, in the import's unit of work: names each line's (kind, reference) in the
     * store (a pair named twice is a problem of the later line) and, for a report without
     * problems (`reconciliationId` given), matches each batch and stores its breaks, then the day's
     * applied events no line names. Fails with the report's problems, form and duplicates together,
     * so the unit of work rolls back whatever it wrote.
     */
    const matchAndStore = Effect.fnUntraced(function* (
      reconciliationId: string | undefined,
      input: ImportInput,
      form: ReportSummary
    ) {
      const importId = reconciliationId ?? REFUSED_IMPORT
      const byKind: { -readonly [K in BreakKind]: number } = { ...noBreaks }
      const duplicates: Array<LineError> = []
      let matched = 0
      let lines = 0
      let ordinal = 0
      const batches = reportBatches(input.bytes, IMPORT_BATCH)
      for (let next = batches.next(); next.done !== true; next = batches.next()) {
        const batch = next.value
        lines += batch.length
        const again = yield* store.nameLines(
          importId,
          batch.map(({ kind, reference, line }) => ({ kind, reference, line }))
        )
        for (const { line, firstLine } of again) {
          duplicates.push({
            line,
            column: "reference",
            message: `this kind and reference are named on line ${firstLine} already`
          })
        }
        if (reconciliationId === undefined || duplicates.length > 0) continue
        const found = yield* store.storedEvents(batch.map(({ kind, reference }) => ({ kind, reference })))
        const events = new Map(found.map((event) => [keyOf(event.kind, event.reference), event]))
        const breaks: Array<NewBreak> = []
        for (const line of batch) {
          ordinal++
          const event = events.get(keyOf(line.kind, line.reference))
          const facts = event === undefined ? undefined : factsOf(event)
          const verdict = judgeLine(line, facts)
          if (verdict._tag === "matched") {
            matched++
            continue
          }
          byKind[verdict._tag]++
          breaks.push({
            ordinal,
            kind: verdict._tag,
            reference: line.reference,
            eventKind: line.kind,
            report: reportOf(line),
            ledger: facts === undefined ? null : ledgerOf(facts)
          })
        }
        if (breaks.length > 0) yield* store.addBreaks(reconciliationId, breaks)
      }
      const summary = withProblems(form, duplicates)
      if (reconciliationId === undefined || summary.errors.length > 0) return yield* refused(input, summary)
      // The ledger's side: applied events dated on the day that no line names.
      const receivedFrom = new Date(new Date(`${input.date}T00:00:00Z`).getTime() - RECEIVED_BEFORE_DAY_MS)
      let after: EventForMatching | undefined
      for (;;) {
        const page = yield* store.unnamedAppliedEvents(importId, { receivedFrom, after, limit: IMPORT_BATCH })
        const breaks: Array<NewBreak> = []
        for (const event of page) {
          if (!isApplied(event.outcome) || event.kind === "ignored") continue
          const facts = factsOf(event)
          if (!fallsOn(facts.date, input.date)) continue
          ordinal++
          byKind.missing_in_report++
          breaks.push({
            ordinal,
            kind: "missing_in_report",
            reference: event.reference,
            eventKind: event.kind,
            report: null,
            ledger: ledgerOf(facts)
          })
        }
        if (breaks.length > 0) yield* store.addBreaks(reconciliationId, breaks)
        if (page.length < IMPORT_BATCH) break
        after = page[page.length - 1]
      }
      return yield* store.setCounts(reconciliationId, { lines, matched, byKind })
    })

    /** Logs the refusal (one line) and fails with the report's problems. */
    const refused = (input: ImportInput, summary: ReportSummary) =>
      Effect.logWarning("reconciliation refused").pipe(
        Effect.annotateLogs({
          date: input.date,
          sha256: input.sha256,
          lines: summary.lines,
          errors: summary.errors.length + summary.moreErrors
        }),
        Effect.andThen(
          Effect.fail(
            new InvalidReport({
              message: `the report has ${summary.errors.length + summary.moreErrors} problem(s); nothing was stored`,
              errors: summary.errors,
              moreErrors: summary.moreErrors
            })
          )
        )
      )

    // The import's claim and its two passes, in its unit of work: made once (docs/architecture.md).
    const importLocked = Effect.fnUntraced(function* (
      input: ImportInput,
      form: ReturnType<typeof checkForm>,
      importedAt: Date
    ) {
      // A report with problems of form claims nothing: its second pass only finds its
      // duplicates, to list them with the rest, and fails, rolling its names back.
      if (form.errors.length > 0) {
        yield* matchAndStore(undefined, input, form)
        return yield* Effect.die(new Error("a report with problems of form was not refused"))
      }
      const claimed = yield* store.create({ date: input.date, sha256: input.sha256, importedAt })
      if (!claimed.created) return { created: false, reconciliation: claimed.reconciliation }
      const reconciliation = yield* matchAndStore(claimed.reconciliation.id, input, form)
      return { created: true, reconciliation }
    })

    const importReport = Effect.fn("ReconciliationService.import")(function* (input: ImportInput) {
      if (!SHA256_HEX.test(input.sha256)) return yield* Effect.die(new Error("sha256 must be lowercase hex"))
      if (input.bytes.length > MAX_REPORT_BYTES) {
        return yield* new InvalidReport({
          message: "the report is larger than 10 MiB; nothing was stored",
          errors: [{ line: 1, column: null, message: `a report may have at most ${MAX_REPORT_BYTES} bytes` }],
          moreErrors: 0
        })
      }
      const form = checkForm(input.bytes)
      const importedAt = yield* now
      const result = yield* unitOfWork.transaction(importLocked(input, form, importedAt))
      const view = toReconciliationView(result.reconciliation)
      yield* Effect.logInfo(result.created ? "reconciliation imported" : "reconciliation imported again").pipe(
        Effect.annotateLogs({
          reconciliationId: view.id,
          date: view.date,
          created: result.created,
          lines: view.lines,
          matched: view.matched,
          ...view.breaks.byKind
        })
      )
      if (result.created) yield* observe
      return { created: result.created, reconciliation: view }
    })

    const list = Effect.fn("ReconciliationService.list")(function* (filter: {
      readonly after?: ReconciliationPosition | undefined
      readonly limit: number
    }) {
      const rows = yield* store.list({ after: filter.after, limit: filter.limit + 1 })
      const items = rows.slice(0, filter.limit)
      const last = items[items.length - 1]
      return {
        items: items.map(toReconciliationView),
        next: rows.length > filter.limit && last !== undefined ? { importedAt: last.importedAt, id: last.id } : null
      }
    })

    const find = (id: string) =>
      Effect.flatMap(store.find(id), (found) =>
        Option.isSome(found)
          ? Effect.succeed(found.value)
          : Effect.fail(new ReconciliationNotFound({ reconciliationId: id, message: `no reconciliation ${id}` }))
      )

    const get = Effect.fn("ReconciliationService.get")(function* (id: string) {
      return toReconciliationView(yield* find(id))
    })

    const breaks = Effect.fn("ReconciliationService.breaks")(function* (
      id: string,
      filter: {
        readonly kind?: BreakKind | undefined
        readonly status?: BreakStatus | undefined
        readonly after?: number | undefined
        readonly limit: number
      }
    ) {
      yield* find(id)
      const rows = yield* store.breaks({ ...filter, reconciliationId: id, limit: filter.limit + 1 })
      const items = rows.slice(0, filter.limit)
      const last = items[items.length - 1]
      return {
        items: items.map(toBreakView),
        next: rows.length > filter.limit && last !== undefined ? last.ordinal : null
      }
    })

    const credit = Effect.fnUntraced(function* (found: {
      readonly id: string
      readonly kind: BreakKind
      readonly eventKind: ReportKind
      readonly reference: string
      readonly report: BreakReport | null
    }) {
      const refuse = (message: string) => Effect.fail(new CreditRefused({ breakId: found.id, message }))
      const report = found.report
      if (found.kind !== "missing_in_ledger" || found.eventKind !== "virtualaccount.credit" || report === null) {
        return yield* refuse("only a missing_in_ledger break of a virtualaccount.credit line can be credited")
      }
      const received = yield* store.storedEvents([{ kind: "virtualaccount.credit", reference: found.reference }])
      if (received.length > 0) {
        return yield* refuse(
          `an event of reference ${found.reference} was received since the import (event ${received[0]?.id}); look at it instead`
        )
      }
      const accountNumber = report.accountNumber ?? ""
      const account = yield* virtualAccounts.find(accountNumber)
      if (Option.isNone(account)) return yield* refuse(`no virtual account ${accountNumber} is linked`)
      const { userId, currency } = account.value
      if (currency !== report.currency) {
        return yield* refuse(`account ${accountNumber} is linked in ${currency}, the line is in ${report.currency}`)
      }
      const amount = BigDecimal.fromStringUnsafe(report.settledAmount ?? report.amount)
      // The webhook's own builder and key (Movements.deposit, LedgerKeys.depositKey): the same
      // posting a delivery of this reference would make, so whichever comes second posts nothing.
      const built = Movements.deposit({ reference: found.reference, userId, currency, amount })
      if (Result.isFailure(built)) return yield* Effect.die(built.failure)
      const transaction = built.success
      const created = yield* postNotified(ledger, outbox, {
        transaction,
        notification: {
          eventKey: depositKey(found.reference),
          userId,
          content: depositReceived({ currency, amount, senderName: null })
        }
      })
      if (!created) return yield* refuse(`the ledger holds the deposit of ${found.reference} already`)
      return transaction.key
    })

    // The resolution's reads and writes, in its unit of work: made once (docs/architecture.md).
    const resolveLocked = Effect.fnUntraced(function* (input: ResolveInput) {
      const found = yield* store.findBreakForUpdate(input.reconciliationId, input.breakId)
      if (Option.isNone(found)) {
        return yield* new BreakNotFound({
          breakId: input.breakId,
          message: `no break ${input.breakId} in reconciliation ${input.reconciliationId}`
        })
      }
      const target = found.value
      if (target.status === "resolved") {
        return yield* new BreakAlreadyResolved({
          breakId: target.id,
          message: `break ${target.id} is resolved already`
        })
      }
      const transactionId = input.action === "credit" ? yield* credit(target) : null
      return yield* store.resolve(target.id, {
        action: input.action,
        note: input.note,
        resolvedAt: (yield* now).toISOString(),
        resolvedBy: input.by,
        transactionId
      })
    })

    const resolve = Effect.fn("ReconciliationService.resolve")(function* (input: ResolveInput) {
      const resolved = yield* unitOfWork.transaction(resolveLocked(input))
      yield* observe
      return toBreakView(resolved)
    })

    yield* Effect.ignoreCause(observe)
    yield* Effect.forkScoped(Effect.repeat(Effect.ignoreCause(observe), Schedule.spaced(OBSERVE_EVERY)))

    return ReconciliationService.of({ import: importReport, list, get, breaks, resolve, observe })
  })
}
