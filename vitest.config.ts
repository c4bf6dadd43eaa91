import { defineConfig } from "vitest/config"

/**
 * The files that read a mirror's index (the mirror's own suites, the port suite, the recorded corpus, which is a
 * sealed mirror index): run once more with the index's reads forced through WebAssembly, so the fallback an install
 * without the optional native engine (libsql) reads through is held to the same tests. The first run reads through
 * the default engine (native where libsql is installed, as in CI; test/mirror/engines.test.ts checks that it is).
 */
const READS_INDEX = [
  "test/mirror/*.test.ts",
  "test/ports/arxiv-port.suite.test.ts",
  "test/adapters/corpus-*.test.ts",
  "test/adapters/recorded-openalex.test.ts"
]

export default defineConfig({
  test: {
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
    minWorkers: 1,
    projects: [
      { extends: true, test: { name: "default", include: ["test/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "wasm reads",
          include: READS_INDEX,
          // PostgreSQL's mirror reads no SQLite file
          exclude: ["test/mirror/postgres*.test.ts"],
          env: { ARXIV_COMPANION_SQLITE: "wasm" }
        }
      }
    ]
  }
})
