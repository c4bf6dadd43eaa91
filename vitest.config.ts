import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/build.ts"],
    setupFiles: ["test/support/fast-check.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // a condition polled in a browser or a child process (1 s by default) waits longer when the machine
    // is loaded, instead of failing while the answer is on its way
    expect: { poll: { timeout: 15_000 } },
    /**
     * Vitest's default is one worker per CPU but one (a single worker on a 2-CPU machine), yet most
     * of this suite's time is spent waiting: on the built bins it spawns (CLI, MCP server, the page),
     * on headless Chromium, on loopback stand-ins. Three forks keep both CPUs busy while one file
     * waits; more only adds contention on a 2-CPU machine. `--maxWorkers=n` overrides it.
     */
    pool: "forks",
    maxWorkers: 3,
    minWorkers: 1
  }
})
