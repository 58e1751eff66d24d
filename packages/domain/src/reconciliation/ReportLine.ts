import { BigDecimal, Option, Result, Schema } from "effect"
import { AccountNumber, Reference } from "../banking/Model.ts"
import { type Currency, currencyScale, isCurrency, parseDecimal } from "../money/index.ts"

/** The kinds of provider transaction a report line names (CONTRACT §7). */
export const ReportKind = Schema.Literals(["virtualaccount.credit", "transfer.success", "transfer.failed"])
export type ReportKind = typeof ReportKind.Type

/** The report's columns, as its header names them (trimmed, any case, any order). */
export const REPORT_COLUMNS = [
  "reference",
  "kind",
  "amount",
  "fee",
  "settled_amount",
  "currency",
  "account_number",
  "settled_at"
] as const
export type ReportColumn = (typeof REPORT_COLUMNS)[number]

const ALWAYS: ReadonlyArray<ReportColumn> = ["reference", "kind", "amount", "currency", "settled_at"]

/** One line of the report, read: amounts exact, absent optional values null. */
export interface ReportLine {
  /** 1-based line of the file it started on; the header is line 1. */
  readonly line: number
  readonly reference: string
  readonly kind: ReportKind
  readonly amount: BigDecimal.BigDecimal
  readonly fee: BigDecimal.BigDecimal | null
  readonly settledAmount: BigDecimal.BigDecimal | null
  readonly currency: Currency
  readonly accountNumber: string | null
  readonly settledAt: Date
}

/** Why a line, or one of its values, cannot be read: what the 400 lists. */
export interface LineError {
  readonly line: number
  /** The column's name as the contract spells it, or null for the line as a whole. */
  readonly column: string | null
  readonly message: string
}

/** Where each known column sits in a line (its index among the fields). */
export type ReportHeader = ReadonlyMap<ReportColumn, number> & { readonly width: number }

const isReportColumn = (name: string): name is ReportColumn => (REPORT_COLUMNS as ReadonlyArray<string>).includes(name)

/**
 * The header line: names trimmed and compared without regard to case, unknown names ignored; each
 * column that every line needs must be there, once.
 */
export const readHeader = (fields: ReadonlyArray<string>): Result.Result<ReportHeader, ReadonlyArray<LineError>> => {
  const positions = new Map<ReportColumn, number>()
  const errors: Array<LineError> = []
  fields.forEach((raw, index) => {
    const name = raw.trim().toLowerCase()
    if (!isReportColumn(name)) return
    if (positions.has(name)) errors.push({ line: 1, column: name, message: "the column is named twice" })
    else positions.set(name, index)
  })
  for (const column of ALWAYS) {
    if (!positions.has(column)) errors.push({ line: 1, column, message: "required column missing from the header" })
  }
  if (errors.length > 0) return Result.fail(errors)
  return Result.succeed(Object.assign(positions, { width: fields.length }))
}

const isReference = Schema.is(Reference)
const isAccountNumber = Schema.is(AccountNumber)
const isKind = Schema.is(ReportKind)

const UTC_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/

/**
 * An ISO 8601 UTC instant ending in `Z` (`2026-11-21T18:30:00Z`, fractions allowed), whose date
 * and time exist: February 30th or 24:00 are refused rather than rolled over. Read by hand: a
 * report has a hundred thousand of them, and the general `Instant` (any offset) costs four times
 * as much.
 */
export const readUtcInstant = (text: string): Date | undefined => {
  const parts = UTC_INSTANT.exec(text)
  if (parts === null) return undefined
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  const millis = Number((parts[7] ?? "0").padEnd(3, "0").slice(0, 3))
  const at = new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis))
  const exists =
    at.getUTCFullYear() === year &&
    at.getUTCMonth() === month - 1 &&
    at.getUTCDate() === day &&
    at.getUTCHours() === hour &&
    at.getUTCMinutes() === minute &&
    at.getUTCSeconds() === second
  return exists ? at : undefined
}

/** An amount written with no more decimals than its currency has ("100.50" in NGN), or why not. */
const amountOf = (text: string, currency: Currency | undefined): BigDecimal.BigDecimal | string => {
  const parsed = parseDecimal(text)
  if (Option.isNone(parsed)) return "expected a decimal number such as 2500.00"
  const decimals = text.split(".")[1]?.length ?? 0
  if (currency !== undefined && decimals > currencyScale(currency)) {
    return `at most ${currencyScale(currency)} decimals in ${currency}`
  }
  return parsed.value
}

/**
 * One line of values under `header`, read with every problem reported (not only the first): a
 * value that cannot be read, a value that breaks a rule (an amount not above zero, a settled
 * amount that is not the amount less the fee), a value a credit needs left empty.
 */
export const readLine = (
  header: ReportHeader,
  line: number,
  fields: ReadonlyArray<string>
): Result.Result<ReportLine, ReadonlyArray<LineError>> => {
  if (fields.length !== header.width) {
    return Result.fail([
      { line, column: null, message: `expected ${header.width} fields as in the header, found ${fields.length}` }
    ])
  }
  const errors: Array<LineError> = []
  const problem = (column: ReportColumn, message: string) => errors.push({ line, column, message })
  const value = (column: ReportColumn): string => {
    const index = header.get(column)
    return index === undefined ? "" : (fields[index] ?? "")
  }

  const reference = value("reference")
  if (!isReference(reference)) problem("reference", "expected 1 to 256 characters of well-formed text")
  const kind = value("kind")
  if (!isKind(kind)) problem("kind", "expected virtualaccount.credit, transfer.success or transfer.failed")
  const currencyText = value("currency")
  const currency = isCurrency(currencyText) ? currencyText : undefined
  if (currency === undefined) problem("currency", "expected a supported ISO 4217 code in capitals, such as NGN")
  const settledAt = readUtcInstant(value("settled_at"))
  if (settledAt === undefined) {
    problem("settled_at", "expected an ISO 8601 UTC instant ending in Z, such as 2026-11-21T18:30:00Z")
  }

  const amount = amountOf(value("amount"), currency)
  if (typeof amount === "string") problem("amount", amount)
  else if (!BigDecimal.isPositive(amount)) problem("amount", "must be greater than zero")

  const isCredit = kind === "virtualaccount.credit"
  const optionalAmount = (column: "fee" | "settled_amount") => {
    const text = value(column)
    if (text === "") {
      if (isCredit) problem(column, "required on a virtualaccount.credit line")
      return null
    }
    const read = amountOf(text, currency)
    if (typeof read === "string") {
      problem(column, read)
      return null
    }
    return read
  }
  const fee = optionalAmount("fee")
  if (fee !== null && BigDecimal.isNegative(fee)) problem("fee", "must be zero or more")
  const settledAmount = optionalAmount("settled_amount")
  if (
    typeof amount !== "string" &&
    fee !== null &&
    settledAmount !== null &&
    !BigDecimal.equals(settledAmount, BigDecimal.subtract(amount, fee))
  ) {
    problem("settled_amount", "must equal amount less fee exactly")
  }

  const accountText = value("account_number")
  const accountNumber = accountText === "" ? null : accountText
  if (accountNumber === null && isCredit) problem("account_number", "required on a virtualaccount.credit line")
  if (accountNumber !== null && !isAccountNumber(accountNumber)) {
    problem("account_number", "expected 1 to 64 letters, digits or dashes")
  }

  if (errors.length > 0 || typeof amount === "string" || currency === undefined || settledAt === undefined) {
    return Result.fail(errors)
  }
  return Result.succeed({
    line,
    reference,
    kind: kind as ReportKind,
    amount,
    fee,
    settledAmount,
    currency,
    accountNumber,
    settledAt
  })
}
