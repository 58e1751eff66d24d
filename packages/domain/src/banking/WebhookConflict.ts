import { BigDecimal } from "effect"
import type { DecodedWebhook } from "./WebhookDecoder.ts"
import { creditAccountNumber } from "./WebhookRules.ts"

/** One field on which a redelivery disagrees with the stored event, both values as text. */
export interface FieldDifference {
  readonly field: string
  readonly stored: string
  readonly received: string
}

type Value = string | BigDecimal.BigDecimal | undefined

/** The fields every event that moves money has: its type, event, status, currency and amounts. */
const envelopeAndAmounts = (
  payload: Exclude<DecodedWebhook, { readonly kind: "ignored" }>["payload"]
): Array<readonly [string, Value]> => [
  ["type", payload.type],
  ["event", payload.event],
  ["data.type", payload.data.type],
  ["data.status", payload.data.status],
  ["data.currency", payload.data.currency],
  ["data.amount", payload.data.amount],
  ["data.fee", payload.data.fee],
  ["data.settled_amount", payload.data.settled_amount]
]

/**
 * The fields that decide what an event does to money: exactly those the rules in WebhookRules read
 * (envelope type and event, data.type and data.status, currency, amount, fee, settled_amount, and
 * for a credit the receiving account). Everything else (narration, dates, session id, sender names)
 * may be re-serialised or enriched by the provider between deliveries without changing the event.
 * An `ignored` event is acted on by nothing, so no redelivery of one conflicts.
 */
const moneyFields = (event: DecodedWebhook): ReadonlyArray<readonly [string, Value]> => {
  switch (event.kind) {
    case "ignored":
      return []
    case "virtualaccount.credit": {
      return [...envelopeAndAmounts(event.payload), ["account", creditAccountNumber(event.payload)]]
    }
    case "transfer.success":
    case "transfer.failed": {
      return envelopeAndAmounts(event.payload)
    }
  }
}

// Amounts compare as numbers, so "5000.75", 5000.75 and "5000.750" are one amount.
const same = (a: Value, b: Value): boolean =>
  a === undefined || b === undefined || typeof a === "string" || typeof b === "string"
    ? a === b
    : BigDecimal.equals(a, b)

const show = (value: Value): string =>
  value === undefined ? "(absent)" : typeof value === "string" ? value : BigDecimal.format(value)

/**
 * How a redelivery of a stored event's (kind, reference) differs from it, on the money-relevant
 * fields only; empty when it is the same event. Compares decoded values, not bytes.
 */
export const webhookDifferences = (
  stored: DecodedWebhook,
  received: DecodedWebhook
): ReadonlyArray<FieldDifference> => {
  if (stored.kind !== received.kind) return [{ field: "kind", stored: stored.kind, received: received.kind }]
  const before = new Map(moneyFields(stored))
  return moneyFields(received).flatMap(([field, value]) => {
    const old = before.get(field)
    return same(old, value) ? [] : [{ field, stored: show(old), received: show(value) }]
  })
}

/** `data.amount` as text, for the log line of a conflict; null for an event without one. */
export const webhookAmount = (event: DecodedWebhook): string | null =>
  event.kind === "ignored" ? null : BigDecimal.format(event.payload.data.amount)
