import fc from "fast-check"

/** Path segments a router or a path-parameter Schema may choke on. */
export const junkSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "0",
    "-1",
    "1.5",
    "1e3",
    "%201",
    "%20",
    "%",
    "%zz",
    "%00",
    "%0A",
    "%C0%AF",
    "%ED%A0%80",
    "%FF",
    "..",
    "%2e%2e",
    "a%2Fb",
    "%2F",
    "x".repeat(3_000),
    "9".repeat(30),
    "9007199254740993",
    "0x1F",
    "%EF%BC%91",
    "null",
    "undefined",
    "__proto__",
    "constructor",
    "%E2%80%AE",
    "%F0%9F%98%80",
    ";",
    "%3B",
    "*",
    "~",
    "@",
    "'",
    "a'%20OR%20'1'='1"
  ),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.string({ unit: "binary", maxLength: 10 }).map(encodeURIComponent),
  fc.nat().map(String)
)

const limitValue = fc.oneof(
  fc.constantFrom(
    "0",
    "1",
    "50",
    "200",
    "201",
    "-1",
    "1e2",
    "0x10",
    "%2B5",
    "%205",
    "",
    "abc",
    "%00",
    "%zz",
    "9".repeat(30)
  ),
  fc.nat({ max: 500 }).map(String),
  fc.string({ maxLength: 8 }).map(encodeURIComponent)
)

/** A query string: none, paging values good and bad, repeated or odd keys, malformed escapes. */
export const junkQuery: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant("") },
  {
    weight: 4,
    arbitrary: fc.record({ limit: fc.option(limitValue), offset: fc.option(limitValue) }).map(({ limit, offset }) => {
      const parts = [limit === null ? [] : [`limit=${limit}`], offset === null ? [] : [`offset=${offset}`]].flat()
      return parts.length === 0 ? "?" : `?${parts.join("&")}`
    })
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "?limit=1&limit=2",
      "?limit[]=1",
      "?limit[a]=1",
      "?=",
      "?&&&",
      "?%",
      "?limit",
      "?offset",
      "?__proto__=1",
      "?constructor[prototype][x]=1",
      `?q=${"q".repeat(4_000)}`,
      "?limit=5#fragment",
      "?limit=5;offset=1"
    )
  },
  {
    weight: 1,
    arbitrary: fc
      .dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 10 }), { maxKeys: 4 })
      .map((params) => `?${new URLSearchParams(params).toString()}`)
  }
)

/** The same path as a client might misspell it: the router forgives case and doubled slashes. */
export const spelling = (path: string): fc.Arbitrary<{ readonly path: string; readonly label: string }> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant({ path, label: "" }) },
    { weight: 1, arbitrary: fc.constant({ path: path.toUpperCase(), label: "upper-case path" }) },
    { weight: 1, arbitrary: fc.constant({ path: path.replace(/\//g, "//"), label: "doubled slashes" }) },
    { weight: 1, arbitrary: fc.constant({ path: `${path}/`, label: "trailing slash" }) },
    { weight: 1, arbitrary: fc.constant({ path: path.replace("/v1/", "/%76%31/"), label: "escaped letters" }) }
  )
