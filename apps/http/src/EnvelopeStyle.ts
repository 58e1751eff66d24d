/**
 * Which envelope a path answers in (CONTRACT §2): `epoch` timestamps everywhere but trivia, whose
 * timestamps are `local` date-times, and the webhook, whose envelope is `reduced` to
 * `{ status, message, data }`. Shared by the response middleware and by the Node server's own
 * parser-error answers, so a request gets its route's envelope whoever answers it.
 */
export type EnvelopeStyle = "epoch" | "local" | "reduced"

// The router matches paths case-insensitively and forgives doubled slashes and escaped letters, so
// the style is chosen from the path as the router sees it, not as the client spelled it.
const normalisedPath = (url: string) => {
  const path = url.split("?")[0] ?? ""
  let decoded = path
  try {
    decoded = decodeURIComponent(path)
  } catch {
    // A malformed escape cannot match a route either; the raw path decides.
  }
  return decoded.replace(/\/{2,}/g, "/").toLowerCase()
}

export const styleOf = (url: string): EnvelopeStyle => {
  const path = normalisedPath(url)
  return path.startsWith("/v1/gaming/trivia/") ? "local" : path.startsWith("/v1/webhook/") ? "reduced" : "epoch"
}
