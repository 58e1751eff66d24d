import { strictUtf8KeepingBom } from "../text/Utf8.ts"
import { MAX_REPORTED_ERRORS } from "./Model.ts"
import type { LineError, ReportLine } from "./ReportLine.ts"
import { makeReportReader, type ReportSummary } from "./ReportReader.ts"

/** Bytes decoded at a time: the text held at once is this, not the file. */
const CHUNK_BYTES = 64 * 1024
const LF = 0x0a

/**
 * The report's lines, `size` at a time, read from its bytes as strict UTF-8 (a byte sequence that
 * is not UTF-8 is a problem of the physical line it is on, reported like any other), and, when
 * the generator returns, the summary of the whole file. Chunks end at a line feed, which UTF-8
 * never uses inside a character, so a chunk always decodes on its own. Only the current batch
 * and chunk are held, never the file's text.
 */
export function* reportBatches(
  bytes: Uint8Array,
  size: number
): Generator<ReadonlyArray<ReportLine>, ReportSummary, void> {
  const reader = makeReportReader()
  // TextDecoder is declared once, in text/Utf8.ts: the domain compiles without DOM or Node typings.
  const decoder = strictUtf8KeepingBom
  let pending: Array<ReportLine> = []
  let encodingError: LineError | undefined
  let physicalLine = 1
  for (let start = 0; start < bytes.length && encodingError === undefined; ) {
    const lineEnd = bytes.indexOf(LF, Math.min(start + CHUNK_BYTES, bytes.length) - 1)
    const end = lineEnd === -1 ? bytes.length : lineEnd + 1
    const chunk = bytes.subarray(start, end)
    let text: string
    try {
      text = decoder.decode(chunk)
    } catch {
      // The lines before the bad one are read as usual, so their problems are listed too.
      const bad = firstBadLine(chunk, decoder)
      encodingError = { line: physicalLine + bad.line, column: null, message: "not UTF-8 text" }
      text = decoder.decode(chunk.subarray(0, bad.start))
    }
    for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) physicalLine++
    for (const line of reader.feed(text)) pending.push(line)
    if (encodingError !== undefined) break
    while (pending.length >= size) {
      yield pending.slice(0, size)
      pending = pending.slice(size)
    }
    start = end
  }
  const { last, ...summary } = reader.end()
  // What follows a byte that is not text cannot be read as lines: the problem ends the file.
  if (encodingError === undefined) pending.push(...last)
  while (pending.length > 0) {
    yield pending.slice(0, size)
    pending = pending.slice(size)
  }
  return encodingError === undefined ? summary : withProblems(summary, [encodingError])
}

/** The first physical line of the chunk that is not UTF-8: its 0-based index and its first byte. */
const firstBadLine = (
  chunk: Uint8Array,
  decoder: { decode(input: Uint8Array): string }
): { readonly line: number; readonly start: number } => {
  let line = 0
  let start = 0
  for (;;) {
    const at = chunk.indexOf(LF, start)
    const end = at === -1 ? chunk.length : at + 1
    try {
      decoder.decode(chunk.subarray(start, end))
    } catch {
      return { line, start }
    }
    if (at === -1) return { line, start }
    line++
    start = end
  }
}

/** `summary` with `problems` among its errors, in line order, still at most `MAX_REPORTED_ERRORS`. */
export const withProblems = (summary: ReportSummary, problems: ReadonlyArray<LineError>): ReportSummary => {
  if (problems.length === 0) return summary
  const errors = [...summary.errors, ...problems].sort((a, b) => a.line - b.line)
  const kept = errors.slice(0, MAX_REPORTED_ERRORS)
  return { lines: summary.lines, errors: kept, moreErrors: summary.moreErrors + errors.length - kept.length }
}
