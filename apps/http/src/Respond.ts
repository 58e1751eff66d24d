import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { ResponseTime } from "./ResponseTime.ts"

// The success envelopes the handlers answer with; their schemas are the contract's
// (@payments-gaming/api/Envelope).

// Made once per style: a generator written inside the returned arrow would be a new generator
// function per response, and V8 keeps each one it runs (and all it closed over) past the young
// collections (issue 35, docs/benchmarks.md "Seventeenth session").
const build = (style: "epoch" | "local") =>
  Effect.fnUntraced(function* <A>(message: string, data: A, status = 200) {
    const time = yield* ResponseTime
    const timestamp = yield* time[style]
    return { timestamp, status, success: true, message, data } as const
  })

/** A success envelope stamped with epoch milliseconds (every area but trivia). */
export const ok = build("epoch")
/** A success envelope stamped with a local date-time in `APP_TIMEZONE` (the trivia area). */
export const okLocal = build("local")

/**
 * An envelope answered with a status chosen at run time (201 for a new resource, 200 for the same
 * one again), where the endpoint's schema documents both.
 */
export const respond = <A>(envelope: { readonly status: number } & A) =>
  HttpServerResponse.jsonUnsafe(envelope, { status: envelope.status })
