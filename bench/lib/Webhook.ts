import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ROOT } from "./Children.ts"

export const WEBHOOK_PATH = "/v1/webhook/core-banking/provider"

const REFERENCE_SLOT = "__BENCH_REFERENCE__"

/**
 * Virtual-account credits to `accountNumber` (the spec 2.7 example, amounts 5000.75 − 50.25 fee =
 * 4950.50 NGN) with a reference of the caller's choosing. The JSON is built once and split around
 * the reference, so each body is two concatenations away and costs the load generator next to
 * nothing.
 */
export const creditBodies = (accountNumber: string) => {
  const payload = JSON.parse(readFileSync(join(ROOT, "examples", "webhooks", "virtual-account-credit.json"), "utf8"))
  payload.virtualAccountNumber = accountNumber
  payload.data.virtual_account_number = accountNumber
  payload.data.account_number = accountNumber
  payload.data.reference = REFERENCE_SLOT
  const [before, after] = JSON.stringify(payload).split(REFERENCE_SLOT) as [string, string]
  return (reference: string) => `${before}${reference}${after}`
}
