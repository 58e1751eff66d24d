import { CommandEnvironment } from "@payments-gaming/composition/CommandEnvironment"
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as Backend from "./Backend.ts"
import { printText } from "./TerminalText.ts"

const migrateDirectly = Effect.gen(function* () {
  // Loaded only when the command runs.
  const Commands = yield* Effect.promise(() => import("@payments-gaming/composition/Commands"))
  const applied = yield* Commands.migrate
  return applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`)
})

const migrate = Command.make(
  "migrate",
  { json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON")) },
  ({ json }) =>
    Effect.gen(function* () {
      const backend = yield* Backend.resolve
      // The service that owns the embedded database migrated it when it started.
      const names = backend._tag === "Service" ? [] : yield* migrateDirectly
      if (json) {
        yield* Console.log(JSON.stringify({ applied: names }))
      } else {
        yield* printText(names.length === 0 ? "Database is up to date" : `Applied ${names.join(", ")}`)
      }
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(Command.withDescription("Apply pending database migrations (safe to run again, and concurrently)"))

export const db = Command.make("db").pipe(
  Command.withDescription("Database maintenance"),
  Command.withSubcommands([migrate])
)
