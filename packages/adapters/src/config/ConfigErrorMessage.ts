import { type Config, SchemaIssue } from "effect"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * The sentence of a configuration error, for the one line a refused start prints: a source error's
 * own message (`NODE_ENV must be …`) rather than its `SourceError: ` rendering; a value that does
 * not parse as the variable it names and what was expected (`LEDGER_SEAL_INTERVAL: Expected a
 * valid Duration string`), rather than Effect's multi-line `SchemaError(…)` rendering.
 */
export const configErrorMessage = (error: Config.ConfigError): string => {
  if (error.cause._tag === "SourceError") return error.cause.message
  const issues = formatter(error.cause.issue).issues
  if (issues.length === 0) return error.message
  return issues
    .map(({ path, message }) => {
      const name = (path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".")
      return name === "" ? message : `${name}: ${message}`
    })
    .join("; ")
}
