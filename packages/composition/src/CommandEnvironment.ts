import * as DevSecrets from "@payments-gaming/adapters/config/DevSecrets"
import * as Logging from "@payments-gaming/adapters/observability/Logging"
import { Layer } from "effect"

/**
 * What every command runs with: the server's configuration (environment, then the development
 * secrets file) and logs on stderr in the server's format, so stdout carries only the command's own
 * output; warnings and errors only, unless LOG_LEVEL asks for more. Light: no database, no SDK.
 */
export const CommandEnvironment = DevSecrets.layer.pipe(
  Layer.provideMerge(Logging.layerConfig({ stderr: true, defaultLevel: "Warn" }))
)
