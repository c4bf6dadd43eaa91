import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/build.ts"],
    setupFiles: ["test/support/fast-check.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
