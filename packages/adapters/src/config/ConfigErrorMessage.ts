import type { Config } from "effect"

/**
 * The sentence of a configuration error, for the one line a refused start prints: a source error's
 * own message (`NODE_ENV must be …`) rather than its `SourceError: ` rendering; a schema error as
 * Effect renders it.
 */
export const configErrorMessage = (error: Config.ConfigError): string =>
  error.cause._tag === "SourceError" ? error.cause.message : error.message
