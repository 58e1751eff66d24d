import { readFileSync } from "node:fs"

export type Json = { [key: string]: unknown }

/** A sample payload from examples/webhooks, parsed afresh on every call so tests can change it. */
export const example = (
  name: "virtual-account-credit" | "transfer-success" | "transfer-failed" | "ignored"
): Json & { data: Json } =>
  JSON.parse(readFileSync(new URL(`../../../../examples/webhooks/${name}.json`, import.meta.url), "utf8"))

export const exampleBytes = (name: Parameters<typeof example>[0]) =>
  new Uint8Array(readFileSync(new URL(`../../../../examples/webhooks/${name}.json`, import.meta.url)))

export const bytes = (value: unknown) =>
  new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value))

let counter = 0
export const unique = (label: string) => `${label}-${Date.now().toString(36)}-${process.pid}-${counter++}`

/** The spec 2.7 credit example, addressed to `accountNumber`, with its own reference and amounts. */
export const credit = (options: {
  readonly reference: string
  readonly accountNumber: string
  readonly amount?: unknown
  readonly fee?: unknown
  readonly settled?: unknown
  readonly currency?: string
  readonly data?: Json
  readonly top?: Json
}) => {
  const payload = example("virtual-account-credit")
  payload.virtualAccountNumber = options.accountNumber
  payload.data.virtual_account_number = options.accountNumber
  payload.data.account_number = options.accountNumber
  payload.data.reference = options.reference
  if (options.amount !== undefined) payload.data.amount = options.amount
  if (options.fee !== undefined) payload.data.fee = options.fee
  if (options.settled !== undefined) payload.data.settled_amount = options.settled
  if (options.currency !== undefined) payload.data.currency = options.currency
  Object.assign(payload.data, options.data ?? {})
  Object.assign(payload, options.top ?? {})
  return payload
}

/** A transfer event for `reference`: the success or failure example with its amount replaced. */
export const transferEvent = (options: {
  readonly outcome: "success" | "failed"
  readonly reference: string
  readonly amount: unknown
  readonly currency?: string
  readonly data?: Json
  readonly top?: Json
}) => {
  const payload = example(options.outcome === "success" ? "transfer-success" : "transfer-failed")
  payload.data.reference = options.reference
  payload.data.amount = options.amount
  if (options.currency !== undefined) payload.data.currency = options.currency
  Object.assign(payload.data, options.data ?? {})
  Object.assign(payload, options.top ?? {})
  return payload
}
