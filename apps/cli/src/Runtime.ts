import * as DevSecrets from "@payments-gaming/adapters/config/DevSecrets"
import * as Logging from "@payments-gaming/adapters/observability/Logging"
import { Data, Layer } from "effect"

/**
 * What every command runs with: the server's configuration (environment, then the development
 * secrets file) and logs on stderr, so stdout carries only the command's own output.
 */
export const CommandEnvironment = DevSecrets.layer.pipe(Layer.provideMerge(Logging.layerConfig({ stderr: true })))

/** A flag value that parses but makes no sense (exit code 2, like any other usage error). */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}
