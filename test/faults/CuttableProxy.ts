import { type AddressInfo, createServer, type Server, Socket } from "node:net"
import { Effect } from "effect"

export interface CuttableProxy {
  readonly port: number
  /** Proxied connections open right now. */
  readonly open: () => number
  /**
   * Severs the path to the database: every proxied socket is destroyed and the listener is closed,
   * so a new connection attempt is refused (ECONNREFUSED), as when the database host goes away.
   */
  readonly cut: Effect.Effect<void>
  /** Listens again on the same port: new connections reach the database once more. */
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
 * A TCP proxy on 127.0.0.1 in front of `upstream` whose path can be cut and restored. The port
 * stays the same across a cut, so the service under test keeps its configured DATABASE_URL and
 * has to recover by itself. Closed with the scope.
 */
export const cuttableProxy = (upstream: { host: string; port: number }) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
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
        client.pipe(target)
        target.pipe(client)
      })
      await listen(server, 0)
      const port = (server.address() as AddressInfo).port
      const destroyAll = () => {
        for (const socket of sockets) socket.destroy()
        sockets.clear()
      }
      const cut = Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve())
            destroyAll()
          })
      )
      const restore = Effect.promise(() => listen(server, port))
      return { server, destroyAll, proxy: { port, open: () => sockets.size / 2, cut, restore } }
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
  ).pipe(Effect.map(({ proxy }): CuttableProxy => proxy))
