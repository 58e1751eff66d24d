import fc from "fast-check"
import { hostileValue } from "./HostileValues.ts"
import { Entries, jsonText, Raw } from "./JsonText.ts"

/** A request body as bytes, with a short account of how it was made for failure reports. */
export interface BodyCase {
  readonly label: string
  readonly bytes: Uint8Array
}

type Path = ReadonlyArray<string | number>

const encoder = new TextEncoder()
const text = (label: string, body: string): BodyCase => ({ label, bytes: encoder.encode(body) })

const isContainer = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !(value instanceof Raw) && !(value instanceof Entries)

/** Every path to a member of a plain JSON value, containers included. */
const pathsOf = (value: unknown, prefix: Path = []): Array<Path> =>
  isContainer(value)
    ? Object.keys(value).flatMap((key) => {
        const path = [...prefix, Array.isArray(value) ? Number(key) : key]
        return [path, ...pathsOf((value as Record<string, unknown>)[key], path)]
      })
    : []

const showPath = (path: Path) => path.join(".") || "(root)"

/** A copy of `value` with the member at `path` replaced by `member`, or removed when `member` is `remove`. */
const remove = Symbol("remove")
const updated = (value: unknown, path: Path, member: unknown): unknown => {
  if (path.length === 0) return member
  const [head, ...rest] = path as [string | number, ...Array<string | number>]
  if (Array.isArray(value)) {
    const copy = [...value]
    if (rest.length === 0 && member === remove) copy.splice(Number(head), 1)
    else copy[Number(head)] = updated(copy[Number(head)], rest, member)
    return copy
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  if (rest.length === 0 && member === remove) delete copy[head]
  else copy[head] = updated(copy[head], rest, member)
  return copy
}

const pick = <A>(items: ReadonlyArray<A>, index: number): A => items[index % items.length] as A

/** One change to a JSON value: a member replaced, removed, added twice or added anew. */
const fieldMutation = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), at: fc.nat(), value: hostileValue }),
  fc.record({ kind: fc.constant("drop" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("duplicate" as const), at: fc.nat(), value: hostileValue, first: fc.boolean() }),
  fc.record({
    kind: fc.constant("extra" as const),
    key: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("__proto__", "constructor", "id", "", "status")),
    value: hostileValue
  })
)
type FieldMutation = typeof fieldMutation extends fc.Arbitrary<infer A> ? A : never

const applyField = (value: unknown, mutation: FieldMutation): { value: unknown; label: string } => {
  const paths = pathsOf(value)
  if (mutation.kind === "extra" || paths.length === 0) {
    const entries = isContainer(value) && !Array.isArray(value) ? Object.entries(value) : []
    const key = mutation.kind === "extra" ? mutation.key : "extra"
    const member = mutation.kind === "extra" || mutation.kind === "set" ? mutation.value : null
    return { value: new Entries([...entries, [key, member]]), label: `extra ${JSON.stringify(key)}` }
  }
  const path = pick(paths, mutation.at)
  switch (mutation.kind) {
    case "set":
      return { value: updated(value, path, mutation.value), label: `set ${showPath(path)}` }
    case "drop":
      return { value: updated(value, path, remove), label: `drop ${showPath(path)}` }
    case "duplicate": {
      // The repeated key goes on the member's own object, before or after the original.
      const parentPath = path.slice(0, -1)
      const key = String(path[path.length - 1])
      let parent: unknown = value
      for (const step of parentPath) parent = (parent as Record<string, unknown>)[step]
      if (!isContainer(parent) || Array.isArray(parent)) {
        return { value: updated(value, path, mutation.value), label: `set ${showPath(path)}` }
      }
      const entries = Object.entries(parent)
      const repeated: readonly [string, unknown] = [key, mutation.value]
      const written = new Entries(mutation.first ? [repeated, ...entries] : [...entries, repeated])
      return { value: updated(value, parentPath, written), label: `duplicate ${showPath(path)}` }
    }
  }
}

const INVALID_UTF8: ReadonlyArray<ReadonlyArray<number>> = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98]
]

const splice = (bytes: Uint8Array, at: number, inserted: ReadonlyArray<number>) => {
  const position = bytes.length === 0 ? 0 : at % (bytes.length + 1)
  return new Uint8Array([...bytes.subarray(0, position), ...inserted, ...bytes.subarray(position)])
}

const NOT_JSON = [
  "not json",
  "{",
  "}",
  "[",
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}{"b":2}',
  '{"a":1} trailing',
  "a=1&b=2",
  "<xml><a>1</a></xml>",
  "undefined",
  "NaN",
  "\u0000",
  '--boundary\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--boundary--\r\n',
  "/* comment */ {}",
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":"\u0001"}',
  '{"a":"line\nbreak"}'
]

/**
 * Bodies derived from seeds of one endpoint (`valid` ones, picked half the time, and `derived`
 * ones of the right shape): the seed itself, the seed with one to three members changed, whole-body
 * replacements, text that is not JSON, invalid UTF-8, raw control bytes, a BOM, UTF-16, deep
 * nesting and, rarely, a body over the 256 KiB limit.
 */
export const bodyCase = (
  valid: ReadonlyArray<unknown>,
  derived: ReadonlyArray<unknown> = []
): fc.Arbitrary<BodyCase> => {
  const all = [...valid, ...derived]
  const seed = fc.oneof(fc.nat(), fc.nat({ max: valid.length - 1 })).map((index) => pick(all, index))
  return fc.oneof(
    { weight: 4, arbitrary: seed.map((value) => text("seed", jsonText(value))) },
    {
      weight: 10,
      arbitrary: fc.tuple(seed, fc.array(fieldMutation, { minLength: 1, maxLength: 3 })).map(([value, mutations]) => {
        let current = value
        const labels: Array<string> = []
        for (const mutation of mutations) {
          const next = applyField(current, mutation)
          current = next.value
          labels.push(next.label)
        }
        return text(labels.join(", "), jsonText(current))
      })
    },
    { weight: 2, arbitrary: hostileValue.map((value) => text("whole body replaced", jsonText(value))) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(fc.constantFrom(...NOT_JSON), fc.string({ maxLength: 30 }), fc.string({ unit: "binary", maxLength: 30 }))
        .map((body) => text("not JSON", body))
    },
    { weight: 1, arbitrary: fc.constant(text("empty", "")) },
    {
      weight: 1,
      arbitrary: fc.tuple(seed, fc.nat()).map(([value, at]) => {
        const body = jsonText(value)
        return text("truncated", body.slice(0, at % Math.max(body.length, 1)))
      })
    },
    {
      weight: 2,
      arbitrary: fc.tuple(seed, fc.nat(), fc.constantFrom(...INVALID_UTF8)).map(([value, at, inserted]) => ({
        label: `invalid UTF-8 ${inserted.map((b) => b.toString(16)).join(" ")}`,
        bytes: splice(encoder.encode(jsonText(value)), at, inserted)
      }))
    },
    {
      weight: 1,
      arbitrary: fc.tuple(seed, fc.nat(), fc.integer({ min: 0, max: 31 })).map(([value, at, control]) => ({
        label: `raw control byte 0x${control.toString(16)}`,
        bytes: splice(encoder.encode(jsonText(value)), at, [control])
      }))
    },
    {
      weight: 1,
      arbitrary: seed.map((value) => ({
        label: "BOM",
        bytes: new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode(jsonText(value))])
      }))
    },
    {
      weight: 1,
      arbitrary: seed.map((value) => ({
        label: "UTF-16LE",
        bytes: new Uint8Array(Buffer.from(jsonText(value), "utf16le"))
      }))
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(10_000, 50_000, 100_000), fc.constantFrom("array" as const, "object" as const))
        .map(([depth, kind]) =>
          text(
            `nested ${kind} ${depth} deep`,
            kind === "array"
              ? `${"[".repeat(depth)}${"]".repeat(depth)}`
              : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`
          )
        )
    },
    {
      weight: 1,
      arbitrary: seed.map((value) => text("padded with white space", `  \r\n\t${jsonText(value)}\n\n  `))
    },
    {
      weight: 1,
      arbitrary: fc.constant(text("over 256 KiB", JSON.stringify({ padding: "z".repeat(300 * 1024) })))
    }
  )
}
