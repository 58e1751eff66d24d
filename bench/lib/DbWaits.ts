import { PgClient } from "@effect/sql-pg"
import { Effect, ManagedRuntime, Redacted } from "effect"

/**
 * What the target's PostgreSQL sessions were doing during a run, as the average number of sessions
 * in each state over 100 ms samples of pg_stat_activity:
 * - `running`: executing a statement (on CPU, or waiting on something not listed below);
 * - `lock`: waiting for a row or transaction lock held by another session;
 * - `io`: waiting on disk or WAL (IO, and the WAL lightweight locks that serialise commits);
 * - `inTransaction`: idle inside an open transaction, that is, waiting for the application to send
 *   its next statement while holding whatever the transaction has locked;
 * - `idle`: connected, no transaction.
 */
export interface DbWaits {
  readonly samples: number
  readonly running: number
  readonly lock: number
  readonly io: number
  readonly inTransaction: number
  readonly idle: number
  /** The most frequent raw `state wait_event_type:wait_event` combinations, same unit. */
  readonly detail: Record<string, number>
  /**
   * The WAL written during the run, from `pg_stat_wal` (PostgreSQL 14 and later; `null` before, or
   * when it could not be read). It counts the whole cluster, so it is the target's only while
   * nothing else writes: the bench runs one target at a time. A commit waits for its WAL to be
   * flushed, and at saturation the service's spin spent most of its database time waiting for that
   * (docs/benchmarks.md, "Twenty-first session"), so records, bytes and flushes a request are a
   * cost beside CPU.
   */
  readonly wal: WalWritten | null
}

/** Totals over a run: WAL records, their bytes (full-page images included), and WAL flushes (fsyncs). */
export interface WalWritten {
  readonly records: number
  readonly bytes: number
  readonly flushes: number
}

interface WalRow {
  readonly records: string
  readonly bytes: string
  readonly flushes: string
}

interface ActivityRow {
  readonly state: string | null
  readonly waitEventType: string | null
  readonly waitEvent: string | null
}

/**
 * A sampler of the sessions that `applicationName` opened on the database of `databaseUrl`, over
 * its own single connection (one cheap catalog query every 100 ms).
 */
export const makeDbWaitSampler = (databaseUrl: string) => {
  const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1))
  const runtime = ManagedRuntime.make(
    PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1, applicationName: "bench-sampler" })
  )
  const activity = (applicationName: string) =>
    runtime.runPromise(
      Effect.flatMap(
        PgClient.PgClient,
        (sql) =>
          sql<ActivityRow>`SELECT state, wait_event_type AS "waitEventType", wait_event AS "waitEvent"
          FROM pg_stat_activity WHERE datname = ${database} AND application_name = ${applicationName}`
      )
    )

  // Text: the counters are int8 and numeric, and a run's difference is small enough for a double.
  const walNow = () =>
    runtime
      .runPromise(
        Effect.flatMap(
          PgClient.PgClient,
          (sql) => sql<WalRow>`SELECT wal_records::text AS records, wal_bytes::text AS bytes,
            wal_sync::text AS flushes FROM pg_stat_wal`
        )
      )
      .then(([row]) => (row === undefined ? null : row))
      .catch(() => null)

  const start = (applicationName: string) => {
    const walBefore = walNow()
    const totals = { samples: 0, running: 0, lock: 0, io: 0, inTransaction: 0, idle: 0 }
    const detail = new Map<string, number>()
    let stopped = false
    const loop = (async () => {
      while (!stopped) {
        const began = Date.now()
        const rows = await activity(applicationName).catch(() => [] as ReadonlyArray<ActivityRow>)
        totals.samples++
        for (const row of rows) {
          const key = `${row.state ?? "?"} ${row.waitEventType ?? "-"}:${row.waitEvent ?? "-"}`
          detail.set(key, (detail.get(key) ?? 0) + 1)
          if (row.state === "idle") totals.idle++
          else if (row.state?.startsWith("idle in transaction")) totals.inTransaction++
          else if (row.waitEventType === "Lock") totals.lock++
          else if (row.waitEventType === "IO" || (row.waitEventType === "LWLock" && row.waitEvent?.startsWith("WAL")))
            totals.io++
          else totals.running++
        }
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - began))))
      }
    })()
    return {
      stop: async (): Promise<DbWaits> => {
        stopped = true
        await loop
        const [before, after] = await Promise.all([walBefore, walNow()])
        const wal =
          before === null || after === null
            ? null
            : {
                records: Number(after.records) - Number(before.records),
                bytes: Number(after.bytes) - Number(before.bytes),
                flushes: Number(after.flushes) - Number(before.flushes)
              }
        const average = (count: number) => Math.round((100 * count) / Math.max(1, totals.samples)) / 100
        return {
          samples: totals.samples,
          running: average(totals.running),
          lock: average(totals.lock),
          io: average(totals.io),
          inTransaction: average(totals.inTransaction),
          idle: average(totals.idle),
          detail: Object.fromEntries(
            [...detail.entries()]
              .sort((a, b) => b[1] - a[1])
              .slice(0, 8)
              .map(([key, count]) => [key, average(count)])
          ),
          wal
        }
      }
    }
  }

  return { start, dispose: () => runtime.dispose() }
}

/** The sessions' states, and the WAL a request wrote: records, bytes and flushes (fsyncs). */
export const formatWaits = (waits: DbWaits, requests: number) => {
  const sessions = `db: run ${waits.running.toFixed(1)} lock ${waits.lock.toFixed(1)} io ${waits.io.toFixed(1)} in-tx ${waits.inTransaction.toFixed(1)}`
  if (waits.wal === null || requests === 0) return sessions
  const { records, bytes, flushes } = waits.wal
  return `${sessions}; WAL/req ${(records / requests).toFixed(1)} rec ${(bytes / requests).toFixed(0)} B ${(flushes / requests).toFixed(2)} flushes`
}
