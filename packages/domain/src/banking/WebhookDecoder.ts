import { Result, Schema, SchemaIssue, Struct } from "effect"
import { LedgerKeys } from "../ledger/index.ts"
import type { EventKind, WebhookIssue } from "./Model.ts"
import { parseJsonExact } from "./parseJsonExact.ts"
import { CreditPayload, IgnoredPayload, TransferPayload, WebhookFlags } from "./WebhookPayload.ts"

export type DecodedWebhook =
  | {
      readonly kind: "virtualaccount.credit"
      readonly reference: string
      readonly dedupKey: string
      readonly payload: CreditPayload
    }
  | {
      readonly kind: "transfer.success" | "transfer.failed"
      readonly reference: string
      readonly dedupKey: string
      readonly payload: TransferPayload
    }
  | {
      readonly kind: "ignored"
      readonly reference: string
      readonly dedupKey: string
      readonly payload: IgnoredPayload
    }

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const toIssues = (issue: SchemaIssue.Issue): ReadonlyArray<WebhookIssue> =>
  formatter(issue).issues.map((found) => ({
    path: (found.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment)).join("."),
    message: found.message
  }))

/** Exactly one flag names the kind; none means ignored; several is a malformed event. */
export const classify = (flags: typeof WebhookFlags.Type): Result.Result<EventKind, ReadonlyArray<WebhookIssue>> => {
  const set: Array<EventKind> = []
  if (flags.virtualAccountCredit) set.push("virtualaccount.credit")
  if (flags.transferSuccess) set.push("transfer.success")
  if (flags.transferFailed) set.push("transfer.failed")
  if (set.length === 0) return Result.succeed("ignored")
  if (set.length === 1) return Result.succeed(set[0]!)
  return Result.fail([
    {
      path: "",
      message: `more than one event flag is set (${set.join(", ")}); exactly one of virtualAccountCredit, transferSuccess, transferFailed may be true`
    }
  ])
}

/** A decoder built once (this runs for every delivery), reporting every issue rather than the first. */
const decoderOf = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownResult(schema)
  return (input: unknown) => Result.mapError(decode(input, { errors: "all" }), (error) => toIssues(error.issue))
}

/**
 * Each payload less its flags. The flags are read first, on their own, so that a mistyped flag is
 * reported alone; once read they are known to be valid, so decoding them again inside the payload
 * (6 of the 88 schema nodes a credit's reading parsed) could only repeat work, never add an issue.
 */
const withoutFlags = <Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Struct.omit(fields, ["transferFailed", "transferSuccess", "virtualAccountCredit"])
const decodeFlags = decoderOf(WebhookFlags)
const decodeCredit = decoderOf(CreditPayload.mapFields(withoutFlags))
const decodeTransfer = decoderOf(TransferPayload.mapFields(withoutFlags))
const decodeIgnored = decoderOf(IgnoredPayload.mapFields(withoutFlags))

/**
 * The payload the provider sent: the decoded rest with the decoded flags put back, in the order of
 * the payload schemas' fields (the order the full decode gave them).
 */
const withFlags = <Data>(
  rest: {
    readonly type: string
    readonly event: string
    readonly virtualAccountNumber: string | null
    readonly data: Data
  },
  flags: typeof WebhookFlags.Type
) => ({
  type: rest.type,
  event: rest.event,
  transferFailed: flags.transferFailed,
  transferSuccess: flags.transferSuccess,
  virtualAccountCredit: flags.virtualAccountCredit,
  virtualAccountNumber: rest.virtualAccountNumber,
  data: rest.data
})

/** Decodes a parsed body: the flags first, to know which shape to demand, then that shape. */
export const decodeWebhook = (input: unknown): Result.Result<DecodedWebhook, ReadonlyArray<WebhookIssue>> => {
  const flags = decodeFlags(input)
  if (Result.isFailure(flags)) return Result.fail(flags.failure)
  const kind = classify(flags.success)
  if (Result.isFailure(kind)) return Result.fail(kind.failure)
  switch (kind.success) {
    case "virtualaccount.credit":
      return Result.map(decodeCredit(input), (rest) => ({
        kind: "virtualaccount.credit" as const,
        reference: rest.data.reference,
        dedupKey: LedgerKeys.webhookKey("virtualaccount.credit", rest.data.reference),
        payload: withFlags(rest, flags.success)
      }))
    case "transfer.success":
    case "transfer.failed": {
      const transferKind = kind.success
      return Result.map(decodeTransfer(input), (rest) => ({
        kind: transferKind,
        reference: rest.data.reference,
        dedupKey: LedgerKeys.webhookKey(transferKind, rest.data.reference),
        payload: withFlags(rest, flags.success)
      }))
    }
    case "ignored":
      return Result.map(decodeIgnored(input), (rest) => ({
        kind: "ignored" as const,
        reference: rest.data.reference,
        dedupKey: LedgerKeys.webhookKey("ignored", rest.data.reference),
        payload: withFlags(rest, flags.success)
      }))
  }
}

export interface UnreadableWebhook {
  readonly message: string
  readonly issues: ReadonlyArray<WebhookIssue>
}

/** Raw bytes to a classified event, or why not. Pure: the same bytes always give the same answer. */
export const readWebhook = (rawBody: Uint8Array): Result.Result<DecodedWebhook, UnreadableWebhook> => {
  const json = parseJsonExact(rawBody)
  if (Result.isFailure(json))
    return Result.fail({ message: "Malformed JSON", issues: [{ path: "", message: json.failure }] })
  return Result.mapError(decodeWebhook(json.success), (issues) => ({ message: "Invalid webhook payload", issues }))
}
