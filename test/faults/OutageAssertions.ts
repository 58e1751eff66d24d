import { assert } from "@effect/vitest"

export const ENVELOPE_KEYS = ["timestamp", "status", "success", "message", "data"]
export const REDUCED_KEYS = ["status", "message", "data"]

/** A request of a fault test as the client saw it. */
export interface Answered {
  readonly requestId: string
  /** The webhook answers in its reduced envelope; every other route in the full one. */
  readonly kind: string
  /** The HTTP status, or the socket error when no answer came (ECONNRESET, ECONNREFUSED). */
  readonly status: number | string
  readonly text: string
  readonly retryAfter: string | undefined
}

/**
 * What a failed request must look like: a 503 (the database is unavailable: not a 500, which is for
 * bugs) with `Retry-After` in whole seconds, the route's envelope (the webhook's reduced one, so the
 * provider retries), nothing internal.
 */
export const assertCleanFailure = (outcome: Answered) => {
  const label = `${outcome.kind} ${outcome.status}: ${outcome.text}`
  assert.strictEqual(outcome.status, 503, label)
  assert.match(outcome.retryAfter ?? "", /^[1-9]\d*$/, `Retry-After: ${label}`)
  assert.notStrictEqual(outcome.text, "", `empty body: ${label}`)
  // biome-ignore lint/suspicious/noExplicitAny: the body is inspected as arbitrary JSON
  const json: any = JSON.parse(outcome.text)
  assert.deepStrictEqual(Object.keys(json), outcome.kind === "webhook" ? REDUCED_KEYS : ENVELOPE_KEYS, label)
  assert.strictEqual(json.status, outcome.status, label)
  assert.isNull(json.data, label)
  if (outcome.kind !== "webhook") assert.strictEqual(json.success, false, label)
  assert.notMatch(outcome.text, /\bat .+:\d+:\d+|\.ts\b|SqlError|ECONN|stack|Error:/i, `internals leaked: ${label}`)
}

/**
 * The server's log of a database fault (JSON lines): no "Unhandled failure" anywhere, no ERROR line
 * for any request, and exactly one WARN line, with no stack, for each request answered 503.
 */
export const assertOutageLogged = (output: string, outcomes: ReadonlyArray<Answered>) => {
  assert.notInclude(output, "Unhandled failure")
  // biome-ignore lint/suspicious/noExplicitAny: log lines are inspected as arbitrary JSON
  const entries: Array<any> = output.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line)]
    } catch {
      return []
    }
  })
  const warned = new Map<string, number>()
  for (const entry of entries) {
    const requestId = entry.annotations?.requestId
    if (typeof requestId !== "string") continue
    assert.notStrictEqual(entry.level, "ERROR", JSON.stringify(entry))
    if (entry.level !== "WARN") continue
    assert.notMatch(JSON.stringify(entry), /\bat .+:\d+:\d+|\\n\s+at /, `a stack in the log: ${JSON.stringify(entry)}`)
    warned.set(requestId, (warned.get(requestId) ?? 0) + 1)
  }
  for (const o of outcomes.filter((o) => o.status === 503)) {
    assert.strictEqual(warned.get(o.requestId), 1, `one warning for the 503 of ${o.requestId}`)
  }
  return { warnings: [...warned.values()].reduce((sum, n) => sum + n, 0) }
}
