import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"

/** A throwaway CA, a server certificate it signed, an APNs-style P-256 key and an FCM service account. */
export interface TestCertificates {
  readonly dir: string
  readonly caPem: string
  readonly serverCertPem: string
  readonly serverKeyPem: string
  /** Names the server certificate is valid for: the real FCM host, so no TLS check is relaxed. */
  readonly serverNames: ReadonlyArray<string>
  readonly apnsKeyPath: string
  readonly apnsKeyPem: string
  /** A Firebase service-account file (project `from-file`) with a fresh RSA key. */
  readonly serviceAccountPath: string
}

const SERVER_NAMES = ["fcm.googleapis.com", "localhost"]

const openssl = (dir: string, args: ReadonlyArray<string>) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" })

const generate = (): TestCertificates => {
  const dir = mkdtempSync(join(tmpdir(), "push-test-certs-"))
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
  openssl(dir, [
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "1",
    "-subj",
    "/CN=Push Test CA"
  ])
  openssl(dir, ["req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"])
  const altNames = [...SERVER_NAMES.map((name) => `DNS:${name}`), "IP:127.0.0.1"].join(",")
  writeFileSync(join(dir, "server.ext"), `subjectAltName=${altNames}\nextendedKeyUsage=serverAuth\n`)
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.crt",
    "-days",
    "1",
    "-extfile",
    "server.ext"
  ])
  // Apple hands out .p8 files: PKCS#8 PEM of a P-256 key.
  openssl(dir, ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "apns.p8"])
  openssl(dir, ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "service-account.key"])
  const read = (file: string) => readFileSync(join(dir, file), "utf8")
  writeFileSync(
    join(dir, "service-account.json"),
    JSON.stringify({
      type: "service_account",
      project_id: "from-file",
      client_email: "push@from-file.iam.gserviceaccount.com",
      private_key: read("service-account.key")
    })
  )
  return {
    dir,
    caPem: read("ca.crt"),
    serverCertPem: read("server.crt"),
    serverKeyPem: read("server.key"),
    serverNames: SERVER_NAMES,
    apnsKeyPath: join(dir, "apns.p8"),
    apnsKeyPem: read("apns.p8"),
    serviceAccountPath: join(dir, "service-account.json")
  }
}

/** Generates fresh certificates with `openssl` into a temp directory, removed when the scope closes. */
export const makeTestCertificates = Effect.acquireRelease(Effect.sync(generate), (certs) =>
  Effect.sync(() => rmSync(certs.dir, { recursive: true, force: true }))
)
