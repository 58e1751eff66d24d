import { successProblem } from "./SuccessBodies.ts"
import { EPOCH_TIMESTAMP, LOCAL_TIMESTAMP, styleOf } from "./Timestamps.ts"

/** What came back, read fully. */
export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const ENVELOPE_KEYS = ["timestamp", "status", "success", "message", "data"]
const REDUCED_KEYS = ["status", "message", "data"]

const sameKeys = (actual: ReadonlyArray<string>, expected: ReadonlyArray<string>) =>
  actual.length === expected.length && actual.every((key, index) => key === expected[index])

const errorsProblem = (errors: unknown): string | undefined => {
  if (!Array.isArray(errors)) return "errors is not an array"
  const bad = errors.find(
    (issue) =>
      typeof issue !== "object" ||
      issue === null ||
      !sameKeys(Object.keys(issue), ["path", "message"]) ||
      typeof issue.path !== "string" ||
      typeof issue.message !== "string"
  )
  return bad === undefined ? undefined : `errors entry ${JSON.stringify(bad)} is not { path, message }`
}

/** CONTRACT §2 for a 4xx: the route's envelope, its status, success false, data null. */
const errorEnvelopeProblems = (pathname: string, status: number, json: Record<string, unknown>): Array<string> => {
  const problems: Array<string> = []
  const style = styleOf(pathname)
  const keys = Object.keys(json)
  const base = style === "reduced" ? REDUCED_KEYS : ENVELOPE_KEYS
  if (!sameKeys(keys, base) && !sameKeys(keys, [...base, "errors"])) {
    problems.push(`keys ${JSON.stringify(keys)} are not the ${style} envelope`)
  }
  if (json.status !== status) problems.push(`body status ${JSON.stringify(json.status)} is not ${status}`)
  if (json.data !== null) problems.push("data is not null")
  if (typeof json.message !== "string" || json.message === "") problems.push("message is not a non-empty string")
  if (style !== "reduced") {
    if (json.success !== false) problems.push("success is not false")
    const pattern = style === "local" ? LOCAL_TIMESTAMP : EPOCH_TIMESTAMP
    if (typeof json.timestamp !== "string" || !pattern.test(json.timestamp)) {
      problems.push(`timestamp ${JSON.stringify(json.timestamp)} is not ${style}`)
    }
  }
  if ("errors" in json) {
    const problem = errorsProblem(json.errors)
    if (problem !== undefined) problems.push(problem)
  }
  return problems
}

/** CONTRACT §2 for a 2xx envelope: its status, success true, the route's timestamp style. */
const successEnvelopeProblems = (pathname: string, status: number, json: Record<string, unknown>): Array<string> => {
  const style = styleOf(pathname)
  if (style === "reduced" || !("timestamp" in json)) return []
  const problems: Array<string> = []
  if (!sameKeys(Object.keys(json), ENVELOPE_KEYS)) problems.push(`keys ${JSON.stringify(Object.keys(json))}`)
  if (json.status !== status) problems.push(`body status ${JSON.stringify(json.status)} is not ${status}`)
  if (json.success !== true) problems.push("success is not true")
  const pattern = style === "local" ? LOCAL_TIMESTAMP : EPOCH_TIMESTAMP
  if (typeof json.timestamp !== "string" || !pattern.test(json.timestamp)) {
    problems.push(`timestamp ${JSON.stringify(json.timestamp)} is not ${style}`)
  }
  return problems
}

/**
 * Everything wrong with `answer` to a request: a 5xx (never allowed for a malformed request), a
 * 2xx for credentials that must be refused, a 4xx outside the envelope, a 2xx body the route does
 * not document, a request id not handled as README says.
 */
export const answerProblems = (
  request: {
    readonly method: string
    readonly url: string
    readonly headers: Record<string, string>
    readonly authAccepted: boolean | undefined
  },
  answer: Answer
): Array<string> => {
  const problems: Array<string> = []
  const { status } = answer
  const pathname = new URL(request.url).pathname
  if (status >= 500) problems.push(`status ${status}`)
  if (status < 200 || (status >= 300 && status < 400)) problems.push(`unexpected status ${status}`)
  if (request.authAccepted === false && status >= 200 && status < 300) {
    problems.push(`credentials that must be refused got ${status}`)
  }
  const echoed = answer.headers.get("x-request-id")
  // fetch trims header values, so the server saw the trimmed value.
  const sent = request.headers["x-request-id"]?.trim()
  if (echoed === null) problems.push("no X-Request-Id on the response")
  else if (sent !== undefined && SANE_REQUEST_ID.test(sent) ? echoed !== sent : !UUID.test(echoed)) {
    problems.push(`X-Request-Id ${JSON.stringify(echoed)} for ${JSON.stringify(sent)}`)
  }
  if (request.method === "HEAD" || status === 204) return problems
  let json: unknown
  try {
    json = JSON.parse(answer.text)
  } catch {
    if (status >= 400 || !/\/(metrics|docs)$/i.test(pathname)) {
      problems.push(`body is not JSON: ${JSON.stringify(answer.text.slice(0, 120))}`)
    }
    return problems
  }
  if (!(answer.headers.get("content-type") ?? "").includes("application/json")) {
    problems.push(`content-type ${JSON.stringify(answer.headers.get("content-type"))}`)
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    problems.push("body is not a JSON object")
    return problems
  }
  const body = json as Record<string, unknown>
  if (status >= 400 && status < 500) problems.push(...errorEnvelopeProblems(pathname, status, body))
  if (status >= 200 && status < 300) {
    problems.push(...successEnvelopeProblems(pathname, status, body))
    const problem = successProblem(request.method, pathname, json)
    if (problem !== undefined) problems.push(problem)
  }
  for (const leak of ["stack", "    at ", "SqlError", "node_modules"]) {
    if (status >= 400 && answer.text.includes(leak)) problems.push(`error body mentions ${JSON.stringify(leak)}`)
  }
  return problems
}
