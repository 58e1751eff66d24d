import { join } from "node:path"
import { LOCK_FILE, type Owner, readOwner } from "@payments-gaming/adapters/postgres/DataDirLock"
import { untrustedReason } from "@payments-gaming/adapters/postgres/OwnerProcess"
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

/**
 * `DATA_DIR/owner.json` names a service the CLI will not send credentials to (issue 34): not on
 * loopback, or its pid is not a process of this user listening there. One line, nothing sent.
 */
export class UntrustedService extends Data.TaggedError("UntrustedService")<{ readonly message: string }> {}

const dataDirConfig = Config.String("DATA_DIR").pipe(Config.withDefault("./.data"))

/** Fails unless the service `owner` names is this user's own, listening where it says (OwnerProcess.ts). */
const verify = (dataDir: string, owner: Owner, url: string) => {
  const reason = untrustedReason(owner.pid, url)
  if (reason === undefined) return Effect.void
  const lock = join(dataDir, LOCK_FILE)
  return Effect.fail(
    new UntrustedService({
      message: `not sending credentials to the service ${lock} names (pid ${owner.pid}): ${reason}. If no service of yours runs on ${dataDir}, delete ${lock}`
    })
  )
}

/**
 * Checked again right before each request to the service (ServiceClient.call), so credentials
 * never leave on an earlier check alone: `baseUrl` must still be the URL of DATA_DIR's owner, and
 * that owner still trusted.
 */
export const verifyService = (baseUrl: string) =>
  Effect.gen(function* () {
    const dataDir = yield* dataDirConfig
    const owner = readOwner(dataDir)
    if (Option.isNone(owner) || owner.value.url !== baseUrl) {
      return yield* new UntrustedService({
        message: `not sending credentials to ${baseUrl}: it is no longer the service that owns ${dataDir}`
      })
    }
    yield* verify(dataDir, owner.value, baseUrl)
  })

export const resolve = Effect.gen(function* () {
  const url = yield* Config.String("DATABASE_URL").pipe(Config.option)
  if (Option.isSome(url) && url.value.trim() !== "") return { _tag: "Direct" } as Backend
  const dataDir = yield* dataDirConfig
  const owner = readOwner(dataDir)
  if (Option.isNone(owner)) return { _tag: "Direct" } as Backend
  if (owner.value.url === undefined) {
    return yield* new DataDirBusy({
      message: `${dataDir} is in use by process ${owner.value.pid}, which serves no HTTP yet (starting, or another command): try again in a moment`
    })
  }
  yield* verify(dataDir, owner.value, owner.value.url)
  yield* Effect.logDebug(
    `${dataDir} is owned by the service at ${owner.value.url} (pid ${owner.value.pid}): going through it`
  )
  return { _tag: "Service", url: owner.value.url, owner: owner.value } as Backend
})
