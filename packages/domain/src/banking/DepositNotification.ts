import type { BigDecimal } from "effect"
import type { UserId } from "../auth/Model.ts"
import { depositKey } from "../ledger/LedgerKeys.ts"
import type { Currency } from "../money/index.ts"
import type { OutboxEvent } from "../notifications/Model.ts"
import { depositReceived } from "../notifications/Templates.ts"
import type { CreditPayload } from "./WebhookPayload.ts"

// A provider may send a name padded or blank; blank is no name.
const present = (name: string | null | undefined): string | null => {
  const trimmed = name?.trim() ?? ""
  return trimmed === "" ? null : trimmed.replace(/\s+/g, " ")
}

/**
 * Who sent a credit, as the payload names them: `sender_account_name`, else the `source` party's
 * `account_name` (spec 2.7: "party that sent the funds"); null when neither holds a name.
 */
export const senderName = (payload: CreditPayload): string | null =>
  present(payload.data.sender_account_name) ?? present(payload.data.source.account_name)

/**
 * The notification of a credited deposit, keyed by its ledger transaction: the webhook and any
 * replay of it name the same event, so a user hears of one deposit once per device.
 */
export const depositNotification = (options: {
  readonly reference: string
  readonly payload: CreditPayload
  readonly userId: UserId
  readonly currency: Currency
  readonly amount: BigDecimal.BigDecimal
}): OutboxEvent => ({
  eventKey: depositKey(options.reference),
  userId: options.userId,
  content: depositReceived({
    currency: options.currency,
    amount: options.amount,
    senderName: senderName(options.payload)
  })
})
