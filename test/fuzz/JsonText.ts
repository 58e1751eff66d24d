/** JSON text written verbatim where a value would be: numbers no double can hold, NaN, nesting. */
export class Raw {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}

/** An object written as these entries in this order, so the same key may appear twice. */
export class Entries {
  readonly entries: ReadonlyArray<readonly [string, unknown]>
  constructor(entries: ReadonlyArray<readonly [string, unknown]>) {
    this.entries = entries
  }
}

/**
 * Serialises like JSON.stringify, except that `Raw` is written as its text and `Entries` as an
 * object with possibly repeated keys: the shapes a hostile client writes and JSON.stringify cannot.
 * `undefined` members are left out, as JSON.stringify leaves them out.
 */
export const jsonText = (value: unknown): string => {
  if (value instanceof Raw) return value.text
  if (value instanceof Entries) {
    return `{${value.entries
      .filter(([, member]) => member !== undefined)
      .map(([key, member]) => `${JSON.stringify(key)}:${jsonText(member)}`)
      .join(",")}}`
  }
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : jsonText(item))).join(",")}]`
  if (typeof value === "object" && value !== null) return jsonText(new Entries(Object.entries(value)))
  if (typeof value === "bigint") return value.toString()
  return JSON.stringify(value) ?? "null"
}
