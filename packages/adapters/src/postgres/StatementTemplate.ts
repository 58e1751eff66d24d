import type { SqlClient, Statement } from "effect/sql"

/**
 * A place for a parameter in a statement template, interpolated like a value (`${slot.userId}`).
 * It is a marker string that the template maps back to its slot name when it compiles; calls never
 * compare their values with it (they are bound by position).
 */
export type Slots<Name extends string> = { readonly [K in Name]: string }

/** A template's statement for one set of values, one per slot name. */
export type Bind<Name extends string> = <Row extends object>(
  values: Readonly<Record<Name, unknown>>
) => Statement.Statement<Row>

const MARKER = "\u0000slot:"

/**
 * A statement written once, with named slots where its values go, and compiled to SQL text once:
 * each call binds the values to that same text (`sql.unsafe`) instead of building fragments and
 * compiling them again.
 *
 * Why (issue 16): a spin or a webhook credit is one statement of about 3 KB and 40 parameters.
 * Building its fragments and compiling them per request cost about 5 % of the request's CPU and a
 * sixth of the bytes it allocated; the driver then hashes the text again to find its prepared
 * statement. A template's text is one string for the life of the process, and only the parameter
 * array is new per call.
 *
 * What varies in length goes in as arrays (`unnest`), so one template covers every size; a
 * statement whose structure varies is one template per variant. A slot may be used more than once.
 *
 * It compiles here, when the adapter's layer is built (the client's compiler; no connection), so a
 * broken template stops the start rather than its first request: a repeated slot name, a slot
 * never used, a parameter that is not a slot, or a comment. The text's line breaks and
 * indentation are folded to single spaces, which shortens what the driver hashes and what
 * PostgreSQL's logs show; so a template may hold no `--` comment (refused), no string literal
 * spanning lines, and no string literals on consecutive lines (PostgreSQL joins those only across a
 * line break). A value left `undefined` is refused when bound: every slot is given, `null` for NULL.
 */
export const statementTemplate = <Name extends string>(
  sql: SqlClient.SqlClient,
  names: ReadonlyArray<Name>,
  build: (slots: Slots<Name>) => Statement.Fragment
): Bind<Name> => {
  const repeated = names.filter((name, index) => names.indexOf(name) !== index)
  if (repeated.length > 0) throw new Error(`statement template: slot names given twice: ${repeated.join(", ")}`)
  const slots = Object.fromEntries(names.map((name) => [name, `${MARKER}${name}`])) as Slots<Name>
  const [compiled, binds] = sql`${build(slots)}`.compile()
  const order = binds.map((bind) => {
    const name = typeof bind === "string" && bind.startsWith(MARKER) ? bind.slice(MARKER.length) : undefined
    if (name === undefined || !names.includes(name as Name)) {
      throw new Error(`statement template: a parameter is not one of its slots (${String(bind)})`)
    }
    return name as Name
  })
  const unused = names.filter((name) => !order.includes(name))
  if (unused.length > 0) throw new Error(`statement template: slots never used: ${unused.join(", ")}`)
  if (compiled.includes("--")) throw new Error("statement template: no SQL comments (its line breaks are folded)")
  const text = compiled.replace(/\s*\n\s*/g, " ")
  return <Row extends object>(values: Readonly<Record<Name, unknown>>) => {
    const params = new Array<unknown>(order.length)
    for (let index = 0; index < order.length; index++) {
      const value = values[order[index]!]
      if (value === undefined) throw new Error(`statement template: no value for slot ${order[index]}`)
      params[index] = value
    }
    return sql.unsafe<Row>(text, params)
  }
}
