import { runMigrations } from "@payments-gaming/adapters/postgres/Migrations"
import * as PostgresClient from "@payments-gaming/adapters/postgres/PostgresClient"
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { CommandEnvironment } from "./Runtime.ts"

const migrate = Command.make(
  "migrate",
  { json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON")) },
  ({ json }) =>
    Effect.gen(function* () {
      const applied = yield* runMigrations
      const names = applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`)
      if (json) {
        yield* Console.log(JSON.stringify({ applied: names }))
      } else {
        yield* Console.log(names.length === 0 ? "Database is up to date" : `Applied ${names.join(", ")}`)
      }
    }).pipe(Effect.provide(PostgresClient.layerConfig), Effect.provide(CommandEnvironment))
).pipe(Command.withDescription("Apply pending database migrations (safe to run again, and concurrently)"))

export const db = Command.make("db").pipe(
  Command.withDescription("Database maintenance"),
  Command.withSubcommands([migrate])
)
