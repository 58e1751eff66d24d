import fc from "fast-check"
import type { FuzzRequest } from "./FuzzRequest.ts"
import { type Answer, answerProblems } from "./ResponseChecks.ts"

/** One request whose answer broke a rule, described well enough to replay it with curl. */
export interface Finding {
  readonly endpoint: string
  readonly request: string
  readonly answer: string
  readonly problems: ReadonlyArray<string>
  readonly size: number
}

export interface CampaignResult {
  readonly sent: number
  readonly findings: ReadonlyArray<Finding>
  /** Answers per endpoint and status, to show the fuzz reached past authentication and decoding. */
  readonly statuses: Record<string, Record<number, number>>
  readonly millis: number
}

const preview = (bytes: Uint8Array | undefined, max = 300) => {
  if (bytes === undefined) return "(no body)"
  const text = Buffer.from(bytes.subarray(0, max)).toString("latin1")
  return `${JSON.stringify(text)}${bytes.length > max ? `… (${bytes.length} bytes)` : ""}`
}

const shorten = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max)}… (${text.length})` : text)

const describe = (request: FuzzRequest) =>
  [
    `${request.method} ${shorten(request.url, 300)}`,
    ...Object.entries(request.headers).map(([name, value]) => `  ${name}: ${JSON.stringify(shorten(value, 120))}`),
    `  body [${request.body?.label ?? "none"}]: ${preview(request.body?.bytes)}`,
    `  (${request.label})`
  ].join("\n")

/** Sends one request over a fresh fetch and reads the whole answer. */
export const send = async (request: FuzzRequest): Promise<Answer> => {
  const response = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    redirect: "manual",
    signal: AbortSignal.timeout(20_000),
    ...(request.body === undefined ? {} : { body: request.body.bytes })
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

/**
 * Sends every request, `concurrency` at a time, and judges each answer. A request the server
 * dropped (reset, closed without an answer) or took over 20 s to answer is a finding too.
 */
export const runCampaign = async (
  requests: ReadonlyArray<FuzzRequest>,
  concurrency: number,
  judge: (request: FuzzRequest, answer: Answer) => Array<string> = answerProblems
): Promise<CampaignResult> => {
  const started = Date.now()
  const findings: Array<Finding> = []
  const statuses: Record<string, Record<number, number>> = {}
  let next = 0
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++] as FuzzRequest
      const size = (request.body?.bytes.length ?? 0) + request.url.length
      try {
        const answer = await send(request)
        // Another method on the endpoint's path is counted apart: it is another route, or none.
        const key = request.endpoint.startsWith(`${request.method} `)
          ? request.endpoint
          : `${request.endpoint} (other methods)`
        const byStatus = statuses[key] ?? {}
        statuses[key] = byStatus
        byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1
        const problems = judge(request, answer)
        if (problems.length > 0) {
          findings.push({
            endpoint: request.endpoint,
            request: describe(request),
            answer: `${answer.status} ${shorten(answer.text, 400)}`,
            problems,
            size
          })
        }
      } catch (error) {
        const cause =
          error instanceof Error
            ? `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}`
            : String(error)
        findings.push({
          endpoint: request.endpoint,
          request: describe(request),
          answer: "(none)",
          problems: [`request failed: ${cause}`],
          size
        })
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { sent: requests.length, findings, statuses, millis: Date.now() - started }
}

/** The smallest findings of each distinct kind, for an assertion message a person can act on. */
export const report = (findings: ReadonlyArray<Finding>, max = 12): string => {
  const byKind = new Map<string, Finding>()
  for (const finding of [...findings].sort((a, b) => a.size - b.size)) {
    const kind = `${finding.endpoint} | ${finding.problems.map((problem) => problem.replace(/[0-9]+/g, "#").slice(0, 80)).join(" | ")}`
    if (!byKind.has(kind)) byKind.set(kind, finding)
  }
  return [...byKind.values()]
    .slice(0, max)
    .map((finding) => `${finding.problems.join("; ")}\n${finding.request}\n  → ${finding.answer}`)
    .join("\n\n")
}

const CHUNK = 500

/**
 * Samples `runs` requests from `arbitrary` with a fixed `seed` and runs them, a chunk at a time so
 * the long profile never holds tens of thousands of bodies (some of 300 KiB) in memory at once.
 */
export const fuzz = async (
  arbitrary: fc.Arbitrary<FuzzRequest>,
  options: {
    readonly runs: number
    readonly seed: number
    readonly concurrency: number
    readonly judge?: (request: FuzzRequest, answer: Answer) => Array<string>
  }
): Promise<CampaignResult> => {
  const results: Array<CampaignResult> = []
  for (let chunk = 0; chunk * CHUNK < options.runs; chunk++) {
    const requests = fc.sample(arbitrary, {
      seed: options.seed + chunk * 7_919,
      numRuns: Math.min(CHUNK, options.runs - chunk * CHUNK)
    })
    results.push(await runCampaign(requests, options.concurrency, options.judge))
  }
  return merge(results)
}

/** One result from several: counts added, findings kept. */
export const merge = (results: ReadonlyArray<CampaignResult>): CampaignResult => {
  const statuses: Record<string, Record<number, number>> = {}
  for (const result of results) {
    for (const [endpoint, counts] of Object.entries(result.statuses)) {
      const merged = statuses[endpoint] ?? {}
      statuses[endpoint] = merged
      for (const [status, count] of Object.entries(counts)) {
        merged[Number(status)] = (merged[Number(status)] ?? 0) + count
      }
    }
  }
  return {
    sent: results.reduce((sum, result) => sum + result.sent, 0),
    findings: results.flatMap((result) => result.findings),
    statuses,
    millis: results.reduce((sum, result) => sum + result.millis, 0)
  }
}
