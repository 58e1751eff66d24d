import fc from "fast-check"
import { Entries, Raw } from "./JsonText.ts"

/** Nesting of arrays or objects `depth` deep, written as raw text (no recursion anywhere). */
export const deeplyNested = (depth: number, kind: "array" | "object") =>
  kind === "array"
    ? new Raw(`${"[".repeat(depth)}${"]".repeat(depth)}`)
    : new Raw(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`)

/** Numbers at and beyond the edges of a double, written exactly as a client could write them. */
export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    1e308,
    -1e308,
    -0,
    Number.MIN_VALUE,
    Number.MAX_SAFE_INTEGER,
    2 ** 31,
    -(2 ** 31) - 1,
    0.1 + 0.2,
    new Raw("9007199254740993"),
    new Raw("-9007199254740993"),
    new Raw(`1${"0".repeat(99)}`),
    new Raw(`-${"9".repeat(100)}.${"9".repeat(100)}`),
    new Raw(`0.${"0".repeat(400)}1`),
    new Raw("1e309"),
    new Raw("-1e309"),
    new Raw("1e-400"),
    new Raw("1E+2"),
    new Raw("-0.0"),
    new Raw("1.0e0"),
    new Raw("NaN"),
    new Raw("Infinity"),
    new Raw("-Infinity"),
    new Raw("0x10"),
    new Raw("+1"),
    new Raw("01"),
    new Raw(".5"),
    new Raw("1."),
    new Raw("1e"),
    new Raw("--1")
  ),
  fc.double(),
  fc.integer(),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map((n) => new Raw(n.toString()))
)

const CONTROL = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).concat(["\u007f", "\u0085"])

/** Strings no field should have to accept: control characters, NULs, lone surrogates, huge sizes. */
export const hostileString: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    new Raw('"\\u0000"'),
    new Raw('"\\u0000abc"'),
    "\ud800",
    "\udfff",
    new Raw('"\\ud800"'),
    new Raw('"\\uDC00x"'),
    "\u202e",
    "\ufeff",
    "\u2028\u2029",
    "\uffff",
    "😀".repeat(300),
    "%00",
    "' OR 1=1 --",
    `$${"{"}jndi:ldap://x}`,
    "<script>alert(1)</script>",
    "__proto__",
    "constructor",
    "x".repeat(5_000),
    "y".repeat(200_000),
    "NGN ",
    "ngn",
    "2026-02-30T00:00:00Z",
    "9999-12-31T23:59:59.999Z",
    "0000-01-01T00:00:00Z",
    "2026-01-01T00:00:00+01:00",
    "4242424242424242",
    "4242 4242 4242 4242",
    "١٢٣",
    "１２３"
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.array(fc.constantFrom(...CONTROL), { minLength: 1, maxLength: 8 }).map((chars) => `a${chars.join("")}b`)
)

const prototypePolluters = fc.constantFrom<unknown>(
  new Entries([["__proto__", { admin: true, polluted: 1 }]]),
  new Entries([["constructor", { prototype: { polluted: 1 } }]]),
  new Entries([
    ["toString", 1],
    ["hasOwnProperty", "x"],
    ["valueOf", null]
  ])
)

/** Any JSON value of a type a field does not expect, and the shapes parsers trip on. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileNumber },
  { weight: 3, arbitrary: hostileString },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], [1, "a"], { value: 1 }, [[[]]])
  },
  { weight: 1, arbitrary: prototypePolluters },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(10, 1_000, 10_000), fc.constantFrom<"array" | "object">("array", "object"))
      .map(([depth, kind]) => deeplyNested(depth, kind))
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.integer(), { minLength: 1_000, maxLength: 3_000 }) }
)
