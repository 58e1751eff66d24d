import { formatWaits } from "./DbWaits.ts"
import type { Row } from "./Load.ts"
import type { ScenarioId } from "./Scenarios.ts"

export interface Ratio {
  readonly scenario: ScenarioId
  readonly connections: number
  readonly serviceRps: number
  readonly plainRps: number
  readonly staticRps: number
  /** service ÷ plain: what the framework and the domain cost on top of the same SQL. */
  readonly serviceOverPlain: number
  /** service ÷ static: how far the endpoint is from Node's ceiling. */
  readonly serviceOverStatic: number
  /** CPU per request, service ÷ plain: the same question asked of the processes' own CPU time. */
  readonly cpuServiceOverPlain: number
  /** The Fastify + pg peer (issue 16's bar), when it ran: req/s, service ÷ peer, CPU/req service ÷ peer. */
  readonly peerRps: number
  readonly serviceOverPeer: number
  readonly cpuServiceOverPeer: number
}

export interface Check {
  readonly target: string
  readonly measured: string
  readonly pass: boolean
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits

export const ratios = (rows: ReadonlyArray<Row>): Array<Ratio> => {
  const find = (scenario: ScenarioId, target: Row["target"], connections: number) =>
    rows.find((row) => row.scenario === scenario && row.target === target && row.connections === connections)
  const result: Array<Ratio> = []
  for (const row of rows) {
    if (row.target !== "service") continue
    const plain = find(row.scenario, "plain", row.connections)
    const ceiling = find(row.scenario, "static", row.connections)
    const peer = find(row.scenario, "peer", row.connections)
    result.push({
      scenario: row.scenario,
      connections: row.connections,
      serviceRps: round(row.requestsPerSecond, 1),
      plainRps: round(plain?.requestsPerSecond ?? 0, 1),
      staticRps: round(ceiling?.requestsPerSecond ?? 0, 1),
      serviceOverPlain: plain === undefined ? 0 : round(row.requestsPerSecond / plain.requestsPerSecond),
      serviceOverStatic: ceiling === undefined ? 0 : round(row.requestsPerSecond / ceiling.requestsPerSecond, 3),
      cpuServiceOverPlain:
        plain === undefined || plain.cpuMsPerRequest === 0 ? 0 : round(row.cpuMsPerRequest / plain.cpuMsPerRequest),
      peerRps: round(peer?.requestsPerSecond ?? 0, 1),
      serviceOverPeer: peer === undefined ? 0 : round(row.requestsPerSecond / peer.requestsPerSecond),
      cpuServiceOverPeer:
        peer === undefined || peer.cpuMsPerRequest === 0 ? 0 : round(row.cpuMsPerRequest / peer.cpuMsPerRequest)
    })
  }
  return result
}

/** Issue 8's targets against the measured rows and the service's peak RSS on PostgreSQL. */
export const checks = (rows: ReadonlyArray<Row>, ratioRows: ReadonlyArray<Ratio>, servicePeakRssMb: number) => {
  const result: Array<Check> = []
  for (const scenario of ["webhook", "wheel-view", "spin"] as const) {
    const ratio = ratioRows.find((entry) => entry.scenario === scenario && entry.connections === 64)
    if (ratio !== undefined) {
      result.push({
        target: `${scenario} at 64 connections ≥ 0.8 × plain node:http`,
        measured: `${ratio.serviceOverPlain}`,
        pass: ratio.serviceOverPlain >= 0.8
      })
    }
  }
  for (const ratio of ratioRows) {
    if (ratio.connections !== 64 || ratio.peerRps === 0) continue
    result.push({
      target: `${ratio.scenario} at 64 connections ≥ 1.0 × the Fastify + pg peer, CPU/req at most the peer's`,
      measured: `${ratio.serviceOverPeer} × req/s, ${ratio.cpuServiceOverPeer} × CPU/req`,
      pass: ratio.serviceOverPeer >= 1 && ratio.cpuServiceOverPeer <= 1
    })
  }
  for (const row of rows) {
    if (row.target !== "service" || row.connections !== 64) continue
    result.push({
      target: `${row.scenario} p99 < 50 ms at 64 connections`,
      measured: `${row.latencyMs.p99} ms`,
      pass: row.latencyMs.p99 < 50
    })
  }
  result.push({
    target: "service peak RSS < 250 MB on PostgreSQL",
    measured: `${round(servicePeakRssMb, 1)} MB`,
    pass: servicePeakRssMb < 250
  })
  return result
}

const table = (
  header: ReadonlyArray<string>,
  body: ReadonlyArray<ReadonlyArray<string>>,
  right: ReadonlySet<number>
) => {
  const widths = header.map((title, i) => Math.max(title.length, ...body.map((cells) => (cells[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((cell, i) => (right.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd()
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...body.map(line)].join("\n")
}

export const formatRows = (rows: ReadonlyArray<Row>) =>
  table(
    [
      "scenario",
      "target",
      "conns",
      "req/s",
      "p50 ms",
      "p99 ms",
      "errors (+non-2xx)",
      "peak RSS MB",
      "CPU ms/req",
      "note"
    ],
    rows.map((row) => [
      row.scenario,
      row.target,
      String(row.connections),
      row.requestsPerSecond.toFixed(0),
      String(row.latencyMs.p50),
      String(row.latencyMs.p99),
      `${row.errors} (+${row.non2xx})`,
      row.peakRssMb.toFixed(0),
      row.cpuMsPerRequest.toFixed(2),
      [
        row.non2xx > 0
          ? Object.entries(row.statusCodes)
              .filter(([code]) => !code.startsWith("2"))
              .map(([code, count]) => `${code}×${count}`)
              .join(" ")
          : "",
        row.dbWaits === null ? "" : formatWaits(row.dbWaits, row.requestsTotal),
        row.tokensMintedInRun > 0 ? `${row.tokensMintedInRun} tokens minted in run` : ""
      ]
        .filter((text) => text !== "")
        .join("; ")
    ]),
    new Set([2, 3, 4, 5, 6, 7, 8])
  )

export const formatRatios = (ratioRows: ReadonlyArray<Ratio>) =>
  table(
    [
      "scenario",
      "conns",
      "service req/s",
      "plain req/s",
      "static req/s",
      "service ÷ plain",
      "service ÷ static",
      "CPU/req service ÷ plain",
      "peer req/s",
      "service ÷ peer",
      "CPU/req service ÷ peer"
    ],
    ratioRows.map((ratio) => [
      ratio.scenario,
      String(ratio.connections),
      ratio.serviceRps.toFixed(0),
      ratio.plainRps.toFixed(0),
      ratio.staticRps.toFixed(0),
      ratio.serviceOverPlain.toFixed(2),
      ratio.serviceOverStatic.toFixed(3),
      ratio.cpuServiceOverPlain.toFixed(2),
      ratio.peerRps === 0 ? "-" : ratio.peerRps.toFixed(0),
      ratio.peerRps === 0 ? "-" : ratio.serviceOverPeer.toFixed(2),
      ratio.peerRps === 0 ? "-" : ratio.cpuServiceOverPeer.toFixed(2)
    ]),
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  )

export const formatChecks = (checkRows: ReadonlyArray<Check>) =>
  checkRows.map((check) => `  ${check.pass ? "PASS" : "FAIL"}  ${check.target}: ${check.measured}`).join("\n")
