import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs"

/**
 * What the CLI checks before it sends an admin token (and the X-Internal-Key) to the service that
 * `DATA_DIR/owner.json` names (issue 34): that file is only data, and whoever could write it, or
 * could be the pid it names, must not receive credentials. Trusted is a URL on loopback, whose
 * port the lock's own pid, a process of this same user, is listening on.
 */

/**
 * The loopback addresses a service's URL may name, each with the local addresses (as /proc/net
 * writes them) of a listening socket that receives what is sent to it: the address itself, or a
 * wildcard covering it. Not `localhost`: a name may resolve to an address the service does not
 * listen on and another process does (::1 beside a service on 127.0.0.1); the service always
 * advertises an address (Ready.ts).
 */
const LOOPBACK: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["127.0.0.1", new Set(["0100007F", "00000000", "0".repeat(32), "0000000000000000FFFF00000100007F"])],
  ["[::1]", new Set(["00000000000000000000000001000000", "0".repeat(32)])]
])

/** Why `url` is not a plain-HTTP loopback URL, or `undefined` when it is one. */
export const notLoopback = (url: string): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "is not a URL"
  }
  if (parsed.protocol !== "http:") return "is not plain http"
  if (!LOOPBACK.has(parsed.hostname)) return "is not on loopback (127.0.0.1 or [::1])"
  if (parsed.username !== "" || parsed.password !== "") return "carries credentials"
  return undefined
}

/** The port a URL names, its scheme's default when none is written. */
const portOf = (url: URL) => (url.port === "" ? 80 : Number(url.port))

/** The user owning process `pid` (its /proc entry's owner: the effective uid), or `undefined` if it is gone. */
const processUid = (pid: number): number | undefined => {
  try {
    return statSync(`/proc/${pid}`).uid
  } catch {
    return undefined
  }
}

/** The inodes of the sockets process `pid` has open (`socket:[1234]` links in /proc/<pid>/fd). */
const socketInodes = (pid: number): Set<string> => {
  const inodes = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (match?.[1] !== undefined) inodes.add(match[1])
    } catch {
      // Closed meanwhile.
    }
  }
  return inodes
}

/** The TCP sockets in LISTEN state seen from `pid`'s network namespace: inode, local address and port. */
const listeningSockets = (pid: number) => {
  const sockets: Array<{ readonly inode: string; readonly address: string; readonly port: number }> = []
  for (const table of ["tcp", "tcp6"]) {
    let text: string
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, "utf8")
    } catch {
      continue
    }
    for (const line of text.split("\n").slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/)
      const local = fields[1]
      const state = fields[3]
      const inode = fields[9]
      if (local === undefined || inode === undefined || state !== "0A") continue
      const colon = local.lastIndexOf(":")
      sockets.push({
        inode,
        address: local.slice(0, colon).toUpperCase(),
        port: Number.parseInt(local.slice(colon + 1), 16)
      })
    }
  }
  return sockets
}

/**
 * The listening TCP sockets process `pid` has open (Linux, from /proc), or `undefined` where /proc
 * cannot tell (another system, or a process whose descriptors this user may not read).
 */
export const listeningOf = (
  pid: number
): ReadonlyArray<{ readonly address: string; readonly port: number }> | undefined => {
  try {
    const mine = socketInodes(pid)
    return listeningSockets(pid).filter((socket) => mine.has(socket.inode))
  } catch {
    return undefined
  }
}

/**
 * Why the service named by a lock (its pid and URL) is not to be trusted with credentials, or
 * `undefined` when it is: the URL is plain HTTP on loopback, and the pid is a live process of this
 * user listening on the URL's port. On Linux both come from /proc (the pid's owner, and the
 * listening sockets among its own descriptors), so a stale lock whose pid was reused, another
 * user's process, or a process of ours that does not serve that address and port are all refused. Elsewhere,
 * where there is no /proc, a signal probe stands in for the owner (it is refused for another
 * user's process) and the port cannot be checked.
 */
export const untrustedReason = (pid: number, url: string): string | undefined => {
  const notOnLoopback = notLoopback(url)
  if (notOnLoopback !== undefined) return `its URL ${JSON.stringify(url)} ${notOnLoopback}`
  const uid = process.getuid?.()
  if (process.platform !== "linux" || uid === undefined) {
    try {
      process.kill(pid, 0)
    } catch {
      return `process ${pid} is gone or belongs to another user`
    }
    return undefined
  }
  const owner = processUid(pid)
  if (owner === undefined) return `process ${pid} is gone`
  if (owner !== uid) return `process ${pid} belongs to another user (uid ${owner})`
  const sockets = listeningOf(pid)
  if (sockets === undefined) return `the sockets of process ${pid} cannot be read`
  const target = new URL(url)
  const port = portOf(target)
  const covering = LOOPBACK.get(target.hostname) ?? new Set()
  if (!sockets.some((socket) => socket.port === port && covering.has(socket.address))) {
    return `process ${pid} is not listening on ${target.host}`
  }
  return undefined
}
