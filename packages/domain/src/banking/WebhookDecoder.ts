import { Result, Schema, SchemaIssue } from "effect"
import { JsonNumber } from "../money/index.ts"
import type { EventKind, WebhookIssue } from "./Model.ts"
import { CreditPayload, IgnoredPayload, TransferPayload, WebhookFlags } from "./WebhookPayload.ts"

// Every JavaScript runtime has TextDecoder; declared here because the domain compiles without DOM
// or Node typings.
declare const TextDecoder: new (
  label: string,
  options: { readonly fatal: boolean }
) => { decode(input: Uint8Array): string }

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * `JSON.parse` that never rounds a number: each JSON number arrives as a `JsonNumber` carrying its
 * source text (the reviver's `context.source`, Node 21+), which `DecimalAmount` reads exactly, so
 * `12345678901234567890.12` stays what the provider sent.
 */
export const parseJsonExact = (bytes: Uint8Array): Result.Result<unknown, string> => {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return Result.fail("the body is not valid UTF-8")
  }
  try {
    let nul = false
    const parsed: unknown = JSON.parse(text, (_key: string, value: unknown, context?: { readonly source?: string }) => {
      if (typeof value === "string" && value.includes("\u0000")) nul = true
      return typeof value === "number" && context?.source !== undefined ? new JsonNumber(context.source) : value
    })
    // No text column can hold NUL (PostgreSQL refuses it), and no honest field carries one.
    return nul ? Result.fail("strings must not contain NUL characters") : Result.succeed(parsed)
  } catch {
    // The parser's own message (positions, stack depth) says nothing useful to the provider.
    return Result.fail("invalid JSON")
  }
}

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

/** Deduplication key of an event: its kind and the provider's reference. Also its ledger key. */
export const dedupKey = (kind: EventKind, reference: string) => `${kind}:${reference}`

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

const decodeWith = <S extends Schema.Decoder<unknown>>(schema: S, input: unknown) =>
  Result.mapError(Schema.decodeUnknownResult(schema)(input, { errors: "all" }), (error) => toIssues(error.issue))

/** Decodes a parsed body: the flags first, to know which shape to demand, then that shape. */
export const decodeWebhook = (input: unknown): Result.Result<DecodedWebhook, ReadonlyArray<WebhookIssue>> => {
  const flags = decodeWith(WebhookFlags, input)
  if (Result.isFailure(flags)) return Result.fail(flags.failure)
  const kind = classify(flags.success)
  if (Result.isFailure(kind)) return Result.fail(kind.failure)
  switch (kind.success) {
    case "virtualaccount.credit":
      return Result.map(decodeWith(CreditPayload, input), (payload) => ({
        kind: "virtualaccount.credit" as const,
        reference: payload.data.reference,
        dedupKey: dedupKey("virtualaccount.credit", payload.data.reference),
        payload
      }))
    case "transfer.success":
    case "transfer.failed": {
      const transferKind = kind.success
      return Result.map(decodeWith(TransferPayload, input), (payload) => ({
        kind: transferKind,
        reference: payload.data.reference,
        dedupKey: dedupKey(transferKind, payload.data.reference),
        payload
      }))
    }
    case "ignored":
      return Result.map(decodeWith(IgnoredPayload, input), (payload) => ({
        kind: "ignored" as const,
        reference: payload.data.reference,
        dedupKey: dedupKey("ignored", payload.data.reference),
        payload
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
