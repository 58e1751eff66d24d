import { UnitOfWork } from "@payments-gaming/domain/ledger"
import { Effect, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"

/**
 * `UnitOfWork` as a SQL transaction on the ambient client: nested units become savepoints. A
 * database failure (lost connection, serialization failure) is a defect here: the domain has no
 * use for it beyond "this request failed", and the transaction has been rolled back.
 */
export const layer = Layer.effect(
  UnitOfWork,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return UnitOfWork.of({
      transaction: (effect) => sql.withTransaction(effect).pipe(Effect.catchIf(SqlError.isSqlError, Effect.die))
    })
  })
)
