import { type Owner, readOwner } from "@payments-gaming/adapters/postgres/DataDirLock"
import { Config, Data, Effect, Option } from "effect"

/**
 * Where a command that needs the database does its work. On `DATABASE_URL` the CLI opens the
 * database itself, beside any number of services. On the embedded database only one process may
 * open the files (DataDirLock), so when a service owns `DATA_DIR` the command goes through that
 * service's HTTP API instead; when nothing owns it, the command opens (and locks) it itself.
 */
export type Backend =
  | { readonly _tag: "Direct" }
  | { readonly _tag: "Service"; readonly url: string; readonly owner: Owner }

/** Another process owns DATA_DIR but does not serve HTTP (yet): nothing safe to do but wait. */
export class DataDirBusy extends Data.TaggedError("DataDirBusy")<{ readonly message: string }> {}

export const resolve = Effect.gen(function* () {
  const url = yield* Config.String("DATABASE_URL").pipe(Config.option)
  if (Option.isSome(url) && url.value.trim() !== "") return { _tag: "Direct" } as Backend
  const dataDir = yield* Config.String("DATA_DIR").pipe(Config.withDefault("./.data"))
  const owner = readOwner(dataDir)
  if (Option.isNone(owner)) return { _tag: "Direct" } as Backend
  if (owner.value.url === undefined) {
    return yield* new DataDirBusy({
      message: `${dataDir} is in use by process ${owner.value.pid}, which serves no HTTP yet (starting, or another command): try again in a moment`
    })
  }
  yield* Effect.logDebug(
    `${dataDir} is owned by the service at ${owner.value.url} (pid ${owner.value.pid}): going through it`
  )
  return { _tag: "Service", url: owner.value.url, owner: owner.value } as Backend
})
