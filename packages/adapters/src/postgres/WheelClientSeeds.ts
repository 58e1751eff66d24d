import { ClientSeed, type ClientSeedState, ClientSeeds, Nonce } from "@payments-gaming/domain/wheel"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { rowSchema } from "./RowSchema.ts"

/** A row of `wheel_client_seeds` as the statements below return it. */
const ClientSeedRow = rowSchema(
  Schema.Struct({ clientSeed: ClientSeed, nonce: Nonce }),
  (row): ClientSeedState => ({ clientSeed: row.clientSeed, nonce: row.nonce })
)

const UserAndSeed = Schema.Struct({ userId: Schema.String, clientSeed: Schema.String })

/**
 * `ClientSeeds` on PostgreSQL (table `wheel_client_seeds`, migration `0014_wheel_client_seeds`), on
 * the ambient client. Each operation is one statement. A spin takes its nonce in the statement that
 * records it (`SpinRepository.spun`, written by the ledger).
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const selectCurrent = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: ClientSeedRow,
    execute: (userId) =>
      sql`SELECT client_seed AS "clientSeed", next_nonce AS nonce FROM wheel_client_seeds WHERE user_id = ${userId}`
  })

  // A different seed restarts the nonce; the same seed keeps the row as it is (a repeated PUT is the
  // same PUT, and does not hand the next spin a nonce already used with this seed).
  const upsertSeed = SqlSchema.findOne({
    Request: UserAndSeed,
    Result: ClientSeedRow,
    execute: ({ userId, clientSeed }) => sql`INSERT INTO wheel_client_seeds AS s (user_id, client_seed, next_nonce)
        VALUES (${userId}, ${clientSeed}, 0)
        ON CONFLICT (user_id) DO UPDATE SET
          client_seed = excluded.client_seed,
          next_nonce = CASE WHEN s.client_seed = excluded.client_seed THEN s.next_nonce ELSE 0 END,
          updated_at = CASE WHEN s.client_seed = excluded.client_seed THEN s.updated_at ELSE now() END
        RETURNING client_seed AS "clientSeed", next_nonce AS nonce`
  })

  return ClientSeeds.of({
    current: (userId) => Effect.orDie(selectCurrent(userId)),
    set: (userId, clientSeed) => Effect.orDie(upsertSeed({ userId, clientSeed }))
  })
})

/** Needs a `SqlClient` on a database migrated through `0014_wheel_client_seeds`. */
export const layer: Layer.Layer<ClientSeeds, never, SqlClient.SqlClient> = Layer.effect(ClientSeeds, make)
