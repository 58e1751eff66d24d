import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"

export const DEFAULT_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"

/** Runs `use` with a one-connection client on `url`, closed afterwards; gives up after 15 s. */
const withClient = <A>(url: string, use: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1, connectTimeout: "5 seconds" })
        return yield* use(sql)
      })
    ).pipe(Effect.provide(Reactivity.layer), Effect.timeout("15 seconds"))
  )

/** Where PostgreSQL is without the credentials, for messages. */
const describe = (url: string) => {
  const parsed = new URL(url)
  return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`
}

/** The server's version (`SHOW server_version`); fails with a clear message when nothing answers. */
export const serverVersion = async (url: string) => {
  try {
    return await withClient(url, (sql) =>
      Effect.map(sql<{ server_version: string }>`SHOW server_version`, (rows) => rows[0]?.server_version ?? "unknown")
    )
  } catch (error) {
    throw new Error(
      `PostgreSQL is unreachable at ${describe(url)} (${String(error)}).\n` +
        "  Start it (user postgres, trust auth on 127.0.0.1:5432) or set DATABASE_URL to a database the bench may write to."
    )
  }
}

/** A new empty database on the server of `adminUrl`; returns its URL. */
export const createDatabase = async (adminUrl: string, name: string) => {
  await withClient(adminUrl, (sql) => sql`CREATE DATABASE ${sql(name)}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** Drops `name`, disconnecting whoever is still on it. Never throws: it runs during clean-up. */
export const dropDatabase = async (adminUrl: string, name: string) => {
  try {
    await withClient(adminUrl, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)
    return true
  } catch (error) {
    console.error(`could not drop database ${name}: ${String(error)}`)
    return false
  }
}

/**
 * What a player has after spinning in earlier rounds, for each of `userIds` (the `spin-returning`
 * scenario): a client seed taken by three spins (next nonce 3) and a coin account with no postings
 * (balance 0, so the ledger still reconciles). The tables are the service's (migrations 0002 and
 * 0014), which the plain reference shares.
 */
export const storeReturningPlayers = async (url: string, userIds: ReadonlyArray<string>) => {
  await withClient(url, (sql) =>
    Effect.andThen(
      sql`INSERT INTO wheel_client_seeds (user_id, client_seed, next_nonce)
        SELECT id, 'returning ' || left(md5(id), 16), 3 FROM unnest(${userIds}::text[]) AS id
        ON CONFLICT (user_id) DO NOTHING`,
      sql`INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance)
        SELECT 'user:' || id || ':coins', 'COIN', id, true, 0 FROM unnest(${userIds}::text[]) AS id
        ON CONFLICT (id) DO NOTHING`
    )
  )
}
