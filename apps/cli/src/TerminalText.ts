import { Console, Effect } from "effect"

// C0 controls but tab and line feed, DEL, C1 controls (U+0080–U+009F: CSI U+009B among them), and
// the bidirectional overrides and isolates, which reorder what a terminal shows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g
// The same, tab and line breaks included: inside one field of a line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const FIELD_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/** What a control character is shown as: visible, and never part of an escape sequence. */
export const REPLACEMENT = "\uFFFD"

/**
 * `text` with every control character but tab and line feed replaced by U+FFFD, so text a third
 * party wrote (a provider's reference, a webhook's reason, a provider's error) cannot move the
 * cursor, recolour, retitle or clear the operator's terminal, or hide a line (issue 34).
 */
export const terminalSafe = (text: string): string => text.replace(CONTROLS, REPLACEMENT)

/**
 * One field of a tab-separated or aligned line: as `terminalSafe`, and a tab or line break inside
 * it replaced too, so a value can neither add a column nor forge a line.
 */
export const field = (value: string): string => value.replace(FIELD_CONTROLS, REPLACEMENT)

/**
 * Prints text output on stdout through `terminalSafe`. Every text printer of the CLI uses it;
 * `--json` output is printed as `JSON.stringify` wrote it (machine-read, and its escapes are inert).
 */
export const printText = (text: string) => Console.log(terminalSafe(text))

/**
 * Prints a line for the operator on stderr through `terminalSafe`: an error (which may quote what a
 * third party wrote), or a note beside a command's answer (no rows, more pages) that a script
 * reading stdout must not take for a row.
 */
export const printError = (text: string) => Console.error(terminalSafe(text))

/**
 * A list as text: a header line naming the columns, then one tab-separated line per row (each field
 * through `field`), ready for `cut` or `column -t`. On stderr, a note when there is no row, and how to
 * ask for the next page when there is one.
 */
export const printList = (options: {
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<string>>
  /** What the rows are, plural: "No webhook events". */
  readonly noun: string
  /** The flags that ask for the next page, when there is one. */
  readonly next?: string | undefined
}) =>
  Effect.gen(function* () {
    if (options.rows.length === 0) return yield* printError(`No ${options.noun}`)
    const lines = [options.columns, ...options.rows].map((row) => row.map(field).join("\t"))
    yield* printText(lines.join("\n"))
    if (options.next !== undefined) yield* printError(`More ${options.noun}: run again with ${options.next}`)
  })
