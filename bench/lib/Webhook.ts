import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ROOT } from "./Children.ts"

export { WEBHOOK_PATH } from "@payments-gaming/api/Paths"

const REFERENCE_SLOT = "__BENCH_REFERENCE__"

/**
 * Virtual-account credits (the spec 2.7 example, amounts 5000.75 − 50.25 fee = 4950.50 NGN) with
 * a reference of the caller's choosing, spread round-robin over `accountNumbers`: deposits arrive
 * for many users at once, as they do in production, rather than all queueing on one wallet. Each
 * account's JSON is built once and split around the reference, so a body is two concatenations
 * away and costs the load generator next to nothing.
 */
export const creditBodies = (accountNumbers: ReadonlyArray<string>) => {
  const example = readFileSync(join(ROOT, "examples", "webhooks", "virtual-account-credit.json"), "utf8")
  const templates = accountNumbers.map((accountNumber) => {
    const payload = JSON.parse(example)
    payload.virtualAccountNumber = accountNumber
    payload.data.virtual_account_number = accountNumber
    payload.data.account_number = accountNumber
    payload.data.reference = REFERENCE_SLOT
    return JSON.stringify(payload).split(REFERENCE_SLOT) as [string, string]
  })
  return (reference: string, index: number) => {
    const [before, after] = templates[index % templates.length] as [string, string]
    return `${before}${reference}${after}`
  }
}
