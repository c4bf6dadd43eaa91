/**
 * Listening on loopback for a stand-in upstream, on a port this process has
 * not handed out before.
 *
 * The companion keeps one limiter per upstream origin for the whole process
 * (`UpstreamLimiter.shared`), so a Retry-After a test provokes holds that
 * origin for as long as the upstream asked. The kernel may give a later
 * stand-in the port an earlier one closed; that stand-in would then inherit
 * the earlier test's hold. A fresh port is a fresh upstream.
 */
import type { AddressInfo, Server } from "node:net"

const handedOut = new Set<number>()

const listenOnce = (server: Server): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject)
      resolve((server.address() as AddressInfo).port)
    })
  })

const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()))

/** Listen on 127.0.0.1 on a port no earlier stand-in of this process had; returns the port. */
export const listenOnFreshPort = async (server: Server): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await listenOnce(server)
    if (!handedOut.has(port)) {
      handedOut.add(port)
      return port
    }
    await close(server)
  }
  throw new Error("no fresh loopback port after 50 tries")
}
