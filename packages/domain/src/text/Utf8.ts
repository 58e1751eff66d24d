// Every JavaScript runtime has TextDecoder; declared here, once, because the domain compiles without
// DOM or Node typings.
declare const TextDecoder: new (
  label: string,
  options: { readonly fatal: boolean; readonly ignoreBOM?: boolean }
) => { decode(input: Uint8Array): string }

// fatal: invalid UTF-8 is reported, never replaced with U+FFFD.
const strict = new TextDecoder("utf-8", { fatal: true })
const strictKeepingBom = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * The strict decoder that keeps a leading byte-order mark, for a caller that must find where bytes
 * stop being UTF-8 (a settlement report, a chunk at a time; its reader drops the BOM itself).
 * Each `decode` is a whole input (never streaming), so one decoder serves every caller.
 */
export const strictUtf8KeepingBom: { decode(input: Uint8Array): string } = strictKeepingBom

/**
 * The text of `bytes`, or `undefined` when they are not valid UTF-8. A leading byte-order mark is
 * dropped, as a JSON reader does, unless `keepBom` asks to show the bytes exactly as they came.
 */
export const decodeUtf8 = (bytes: Uint8Array, options?: { readonly keepBom?: boolean }): string | undefined => {
  try {
    return (options?.keepBom === true ? strictKeepingBom : strict).decode(bytes)
  } catch {
    return undefined
  }
}
