import { type AddressInfo, createServer, type Server, Socket } from "node:net"
import { Effect } from "effect"

export interface TcpProxy {
  readonly port: number
  /** Proxied connections open right now. */
  readonly open: () => number
  /** Holds every later chunk from the upstream for `ms` before passing it on (0: pass at once). */
  readonly setDelay: (ms: number) => void
  /**
   * Severs the path to the upstream: every proxied socket is destroyed and the listener is closed,
   * so a new connection attempt is refused (ECONNREFUSED), as when the database host goes away.
   */
  readonly cut: Effect.Effect<void>
  /** Listens again on the same port: new connections reach the upstream once more. */
  readonly restore: Effect.Effect<void>
}

const listen = (server: Server, port: number) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject)
      resolve()
    })
  })

/**
 * A TCP proxy on 127.0.0.1 in front of `upstream` (the test's PostgreSQL) that a test can make slow
 * (`setDelay`: a request really in flight, a database that hangs) or cut and restore (an outage).
 * The port stays the same across a cut, so the service keeps its DATABASE_URL and has to recover by
 * itself. Chunks keep their order because every one waits the same delay. Closed with the scope.
 */
export const tcpProxy = (upstream: { host: string; port: number }) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      let delay = 0
      const sockets = new Set<Socket>()
      const server = createServer((client) => {
        const target = new Socket()
        sockets.add(client)
        sockets.add(target)
        const closeBoth = () => {
          client.destroy()
          target.destroy()
          sockets.delete(client)
          sockets.delete(target)
        }
        client.on("error", closeBoth).on("close", closeBoth)
        target.on("error", closeBoth).on("close", closeBoth)
        target.connect(upstream.port, upstream.host)
        client.on("data", (chunk) => target.write(chunk))
        target.on("data", (chunk) => {
          if (delay === 0) client.write(chunk)
          else setTimeout(() => client.writable && client.write(chunk), delay)
        })
      })
      await listen(server, 0)
      const port = (server.address() as AddressInfo).port
      const destroyAll = () => {
        for (const socket of sockets) socket.destroy()
        sockets.clear()
      }
      const proxy: TcpProxy = {
        port,
        open: () => sockets.size / 2,
        setDelay: (ms) => {
          delay = ms
        },
        cut: Effect.promise(
          () =>
            new Promise<void>((resolve) => {
              server.close(() => resolve())
              destroyAll()
            })
        ),
        restore: Effect.promise(() => listen(server, port))
      }
      return { server, destroyAll, proxy }
    }),
    ({ server, destroyAll }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            destroyAll()
            if (server.listening) server.close(() => resolve())
            else resolve()
          })
      )
  ).pipe(Effect.map(({ proxy }) => proxy))
