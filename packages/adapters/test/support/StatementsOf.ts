import { Effect, Tracer } from "effect"

/**
 * Runs `effect` and returns the SQL text of every statement it sent, in order, and how many
 * transactions it opened: how the round trips a write path promises (issue 16) are checked.
 */
export const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const spans: Array<Tracer.NativeSpan> = []
    const tracer = Tracer.make({
      span(options) {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
    const result = yield* Effect.withTracer(effect, tracer)
    const statements = spans.flatMap((span) => {
      const text = span.attributes.get("db.query.text")
      return span.kind === "client" && typeof text === "string" ? [text.replace(/\s+/g, " ").trim()] : []
    })
    // BEGIN and COMMIT are sent without a statement span; a transaction has a span of its own.
    const transactions = spans.filter((span) => span.name === "sql.transaction").length
    return { result, statements, transactions }
  })
