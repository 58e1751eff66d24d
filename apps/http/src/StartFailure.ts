import { configErrorMessage } from "@payments-gaming/adapters/config/ConfigErrorMessage"
import { Cause, type Config, Option } from "effect"

const codeOf = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

const tagOf = (error: unknown) =>
  typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : undefined

/**
 * The one line an operator needs for a start-up failure they can fix themselves (a port in use, a
 * data directory owned by another process, unsafe or missing configuration), without a stack;
 * `None` for anything unexpected, which is logged whole.
 */
export const describe = (cause: Cause.Cause<unknown>, port: string): Option.Option<string> => {
  const error = Cause.squash(cause)
  switch (tagOf(error)) {
    case "ServeError": {
      const inner = (error as { readonly cause: unknown }).cause
      if (codeOf(inner) === "EADDRINUSE") return Option.some(`port ${port} is in use: set PORT to a free port`)
      if (codeOf(inner) === "EACCES") return Option.some(`port ${port} needs privileges: set PORT above 1023`)
      return Option.none()
    }
    case "DataDirInUse":
    case "UnsafeConfiguration":
      return Option.some((error as Error).message)
    case "ConfigError":
      return Option.some(configErrorMessage(error as Config.ConfigError))
    default:
      return Option.none()
  }
}
