import { Effect } from "effect"
import { Digest } from "effect/crypto"

/**
 * The sealed ledger's hash chain (CONTRACT §8, docs/ledger-seals.md): the canonical bytes of a
 * ledger transaction and the hash of a seal: the definition. Pure, so that `ledger verify` and an
 * auditor's own code compute the same bytes; the only effect is SHA-256, from `effect/crypto`. The
 * sealer computes them where the rows are (the adapter's SQL: LedgerSealsPostgres.ts), held to this
 * module byte for byte by the adapter's tests and by verify, which recomputes every seal with it.
 *
 * Every field is taken as the text `ledger export` prints, so an auditor copies strings and never
 * reformats a number or a time: a transaction is encoded as
 *
 *   str(id) ‖ str(key) ‖ str(kind) ‖ str(createdAt) ‖ u32(n) ‖ n × (str(postingId) ‖ str(account) ‖ str(currency) ‖ str(amount))
 *
 * where str(s) is u32(byte length of UTF-8 s) ‖ UTF-8 s, u32 is four bytes big-endian, and the
 * postings are in ascending posting id. The length prefixes make the bytes unambiguous: no two
 * different transactions encode alike, whatever characters a key holds.
 */

/** One posting as it is sealed: its id, account, unit (an ISO currency or `COIN`) and signed minor units. */
export interface SealedPosting {
  readonly id: bigint
  readonly account: string
  readonly currency: string
  readonly amountMinor: bigint
}

/** A ledger transaction as it is sealed; `createdAt` is `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds). */
export interface SealableTransaction {
  readonly id: bigint
  readonly key: string
  readonly kind: string
  readonly createdAt: string
  readonly postings: ReadonlyArray<SealedPosting>
}

/** The `previousHash` of the first seal. */
export const GENESIS_HASH = "0".repeat(64)

/** At most this many transactions in one seal: a backlog is sealed in several, and verify holds one seal at a time. */
export const MAX_SEAL_TRANSACTIONS = 10_000

// Every JavaScript runtime has TextEncoder; declared here, as text/Utf8.ts declares TextDecoder,
// because the domain package builds without DOM or Node typings (npm run build).
declare const TextEncoder: new () => {
  encodeInto(source: string, destination: Uint8Array): { readonly read: number; readonly written: number }
}

const utf8 = new TextEncoder()

/**
 * Writes the encoding into one reused buffer (grown when a transaction needs more) and copies the
 * result out once: verify encodes every transaction of the ledger, and a buffer per field made the
 * allocations and the collector cost more than the hashing.
 */
let scratch = new Uint8Array(4096)
let offset = 0

const reserve = (bytes: number) => {
  if (offset + bytes <= scratch.length) return
  const grown = new Uint8Array(Math.max(scratch.length * 2, offset + bytes))
  grown.set(scratch.subarray(0, offset))
  scratch = grown
}

const writeU32 = (value: number) => {
  reserve(4)
  scratch[offset] = (value >>> 24) & 0xff
  scratch[offset + 1] = (value >>> 16) & 0xff
  scratch[offset + 2] = (value >>> 8) & 0xff
  scratch[offset + 3] = value & 0xff
  offset += 4
}

const writeField = (text: string) => {
  // At most 3 bytes per UTF-16 code unit (a surrogate pair is 4 bytes for 2 units).
  reserve(4 + text.length * 3)
  const start = offset + 4
  let end = start
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0x80) {
      end = start + utf8.encodeInto(text, scratch.subarray(start)).written
      break
    }
    scratch[end++] = code
  }
  const length = end - start
  writeU32(length)
  offset = end
}

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  let length = 0
  for (const part of parts) length += part.length
  const out = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

const byId = (a: SealedPosting, b: SealedPosting) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const inIdOrder = (postings: ReadonlyArray<SealedPosting>): ReadonlyArray<SealedPosting> => {
  for (let i = 1; i < postings.length; i++) {
    if ((postings[i - 1] as SealedPosting).id > (postings[i] as SealedPosting).id) return [...postings].sort(byId)
  }
  return postings
}

const writeTransaction = (transaction: SealableTransaction) => {
  writeField(transaction.id.toString())
  writeField(transaction.key)
  writeField(transaction.kind)
  writeField(transaction.createdAt)
  const postings = inIdOrder(transaction.postings)
  writeU32(postings.length)
  for (const posting of postings) {
    writeField(posting.id.toString())
    writeField(posting.account)
    writeField(posting.currency)
    writeField(posting.amountMinor.toString())
  }
}

/** The canonical bytes of a transaction (see the top of this module). */
export const encodeTransaction = (transaction: SealableTransaction): Uint8Array => {
  offset = 0
  writeTransaction(transaction)
  return scratch.slice(0, offset)
}

const HEX = /^[0-9a-f]{64}$/

export const isHash = (text: string): boolean => HEX.test(text)

/** The 32 bytes of a lowercase hex hash. */
export const hashBytes = (hash: string): Uint8Array => {
  if (!isHash(hash)) throw new Error(`not a SHA-256 hash in lowercase hex: ${hash}`)
  const bytes = new Uint8Array(32)
  for (let i = 0; i < 32; i++) bytes[i] = Number.parseInt(hash.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

export const toHex = (bytes: Uint8Array): string => {
  let hex = ""
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0")
  return hex
}

/** The bytes a seal's hash is taken of: previousHash's 32 bytes, then each transaction's encoding in order. */
export const sealMessage = (previousHash: string, encodings: ReadonlyArray<Uint8Array>): Uint8Array =>
  concat([hashBytes(previousHash), ...encodings])

/**
 * `sealMessage` of the transactions themselves, written straight into the reused buffer: verify
 * hashes every seal of the ledger this way, with no copy per transaction. The answer is a view of
 * that buffer, valid until the next call of this module's encoders: hash it at once.
 */
export const sealMessageOf = (previousHash: string, transactions: ReadonlyArray<SealableTransaction>): Uint8Array => {
  offset = 0
  reserve(32)
  scratch.set(hashBytes(previousHash), 0)
  offset = 32
  for (const transaction of transactions) writeTransaction(transaction)
  return scratch.subarray(0, offset)
}

/** SHA-256 of `data`, lowercase hex. */
export const sha256Hex = Effect.fnUntraced(function* (
  data: Uint8Array
): Effect.fn.Return<string, never, Digest.Digest> {
  const digest = yield* Digest.Digest
  return yield* digest.digestHex(Digest.sha256, data)
})

/** A seal's hash: SHA-256(previousHash ‖ encode(t₁) ‖ … ‖ encode(tₙ)), lowercase hex. */
export const sealHash = (
  previousHash: string,
  encodings: ReadonlyArray<Uint8Array>
): Effect.Effect<string, never, Digest.Digest> => sha256Hex(sealMessage(previousHash, encodings))
