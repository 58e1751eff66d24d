/** CONTRACT §2 *epoch*: milliseconds since the epoch, as a string. */
export const EPOCH_TIMESTAMP = /^\d{13}$/
/** CONTRACT §2 *local*: an ISO 8601 local date-time with milliseconds and no offset. */
export const LOCAL_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/

export type EnvelopeStyle = "epoch" | "local" | "reduced"

/** The path as the router matches it: escapes decoded, slashes collapsed, case folded. */
export const routedPath = (pathname: string): string => {
  let decoded = pathname
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    // A malformed escape is matched as written.
  }
  return decoded.replace(/\/{2,}/g, "/").toLowerCase()
}

/**
 * CONTRACT §2, as the contract words it (not as the service implements it, from route annotations):
 * every response under /v1/gaming/trivia/ uses local date-times, the webhook's (and anything else under
 * /v1/webhook/) the reduced envelope; every other envelope is epoch.
 */
const CONTRACT_STYLES: ReadonlyArray<readonly [prefix: string, style: EnvelopeStyle]> = [
  ["/v1/gaming/trivia/", "local"],
  ["/v1/webhook/", "reduced"]
]

/** The envelope the contract gives every response under this path. */
export const styleOf = (pathname: string): EnvelopeStyle => {
  const path = routedPath(pathname)
  return CONTRACT_STYLES.find(([prefix]) => path.startsWith(prefix))?.[1] ?? "epoch"
}
