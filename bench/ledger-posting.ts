/**
 * `node --conditions=payments-gaming-source bench/ledger-posting.ts [--deposits 4000] [--rounds 6] [--concurrency 8] [--before <migration id>] [--keep]`:
 * what one ledger posting costs PostgreSQL (issue 35). Posts deposits of two postings each through
 * the service's own ledger (`Ledger.post`, the statement every credit, prize and transfer writes
 * with) from `--concurrency` fibers on as many connections, to the bench's 1,000 users, and prints
 * per round the deposits a second and PostgreSQL's CPU a deposit (every postgres process of the
 * machine, from /proc: keep the machine otherwise idle). With `--before <id>` it does the same on a
 * second database migrated only up to that migration, the rounds interleaved A, B, B, A, …, and
 * prints the medians side by side: the cost of a migration, measured in one run. Databases on the
 * PostgreSQL at 127.0.0.1:5432 (or BENCH_DATABASE_ADMIN_URL), dropped at the end unless --keep. See
 * docs/benchmarks.md.
 */
import { migrations } from "@payments-gaming/adapters/postgres/migrations/index"
import * as PostgresClient from "@payments-gaming/adapters/postgres/PostgresClient"
import * as Layers from "@payments-gaming/composition/Layers"
import { UserId } from "@payments-gaming/domain/auth"
import { Ledger, Movements } from "@payments-gaming/domain/ledger"
import { BigDecimal, Effect, Layer, Redacted, Result } from "effect"
import { postgresCpuMs } from "./lib/Children.ts"
import { createDatabase, DEFAULT_ADMIN_URL, dropDatabase } from "./lib/Database.ts"
import { flag, has, positive } from "./lib/ScriptFlags.ts"

const deposits = positive("--deposits", 4000)
const rounds = positive("--rounds", 6)
const concurrency = positive("--concurrency", 8)
const before = flag("--before")
if (before !== undefined && !Object.keys(migrations).some((id) => id.startsWith(before))) {
  throw new Error(`--before: no migration ${before}`)
}
const keep = has("--keep")
const adminUrl = process.env.BENCH_DATABASE_ADMIN_URL ?? DEFAULT_ADMIN_URL
const amount = BigDecimal.fromStringUnsafe("10.00")

/** Every migration, or only those before `until` (as the adapters' tests migrate up to one). */
const migrate = (until: string | undefined) =>
  Effect.gen(function* () {
    const ids = Object.keys(migrations)
      .filter((id) => until === undefined || id < until)
      .sort()
    for (const id of ids) yield* migrations[id]!
    return ids.at(-1)
  })

interface Target {
  readonly label: string
  readonly until: string | undefined
}

/** One round on the ledger in context: `deposits` deposits, `concurrency` at a time; its rate and PostgreSQL's CPU. */
const round = (index: number) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const postgresBefore = postgresCpuMs()
    const started = process.hrtime.bigint()
    yield* Effect.forEach(
      Array.from({ length: deposits }, (_, i) => i),
      (i) =>
        ledger.post(
          Result.getOrThrow(
            Movements.deposit({
              reference: `BENCH-${index}-${i}`,
              userId: UserId.make(`bench-${i % 1000}`),
              currency: "NGN",
              amount
            })
          )
        ),
      { concurrency, discard: true }
    )
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    return { perSecond: deposits / seconds, postgresUs: ((postgresCpuMs() - postgresBefore) * 1000) / deposits }
  })

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const main = async () => {
  const targets: Array<Target> = [{ label: "all migrations", until: undefined }]
  if (before !== undefined) targets.push({ label: `before ${before}`, until: before })
  const urls = await Promise.all(
    targets.map((_, i) => createDatabase(adminUrl, `bench_ledger_posting_${process.pid}_${i}`))
  )
  try {
    const ledgers = urls.map((url) =>
      Layers.Ledger.pipe(
        Layer.provideMerge(
          PostgresClient.layer({
            url: Redacted.make(url),
            dataDir: undefined,
            maxConnections: concurrency,
            statementsPerConnection: 1
          })
        )
      )
    )
    // Each database keeps its pool open across its rounds (a closed connection's CPU leaves /proc).
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const contexts = []
          for (const [i, target] of targets.entries()) {
            const context = yield* Layer.build(ledgers[i]!)
            const last = yield* migrate(target.until).pipe(Effect.provideContext(context))
            console.log(`${target.label}: migrated through ${last}`)
            contexts.push(context)
          }
          const results = targets.map(() => [] as Array<{ perSecond: number; postgresUs: number }>)
          // A warm-up round each (caches, plans), then the measured ones in abba order.
          for (const context of contexts) yield* round(0).pipe(Effect.provideContext(context))
          for (let r = 1; r <= rounds; r++) {
            const order = targets.map((_, i) => i)
            if (r % 2 === 0) order.reverse()
            for (const i of order) {
              const result = yield* round(r).pipe(Effect.provideContext(contexts[i]!))
              results[i]!.push(result)
              console.log(
                `round ${r} ${targets[i]!.label}: ${result.perSecond.toFixed(0)} deposits/s, ` +
                  `${result.postgresUs.toFixed(0)} µs of PostgreSQL's CPU a deposit`
              )
            }
          }
          for (const [i, target] of targets.entries()) {
            const rows = results[i]!
            console.log(
              `${target.label}: median ${median(rows.map((row) => row.perSecond)).toFixed(0)} deposits/s, ` +
                `${median(rows.map((row) => row.postgresUs)).toFixed(0)} µs of PostgreSQL's CPU a deposit ` +
                `(${rounds} rounds of ${deposits}, ${concurrency} at a time)`
            )
          }
        })
      )
    )
  } finally {
    if (!keep)
      for (const [i] of targets.entries()) await dropDatabase(adminUrl, `bench_ledger_posting_${process.pid}_${i}`)
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
