/**
 * The speech programs the voice tests run for real: Debian's espeak-ng,
 * pocketsphinx (+ pocketsphinx-en-us) and sox. `.ci/run` installs them.
 * Skipped with a message when missing locally; in CI (CI=true) a missing
 * program fails the tests instead.
 */
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { IN_CI } from "./chromium.js"

const installed = (program: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/** What is missing for the speaking tests, in words (empty: all there). */
export const missingSpeechPrograms = (): ReadonlyArray<string> => [
  ...(installed("espeak-ng") ? [] : ["espeak-ng"]),
  ...(installed("pocketsphinx_continuous") ? [] : ["pocketsphinx"]),
  ...(existsSync("/usr/share/pocketsphinx/model/en-us/en-us/mdef") ? [] : ["pocketsphinx-en-us"]),
  ...(installed("sox") ? [] : ["sox"])
]

/** Whether the speaking tests run here; when not, say why once. In CI they always run (and fail when a program is missing). */
export const speechAvailable = (what: string): boolean => {
  const missing = missingSpeechPrograms()
  if (missing.length > 0 && !IN_CI) {
    console.warn(
      `Skipping ${what}: ${missing.join(", ")} not installed. ` +
        `Install them (apt-get install -y --no-install-recommends ${missing.join(" ")}); in CI (CI=true) these tests fail instead.`
    )
  }
  return missing.length === 0 || IN_CI
}

/** Where Debian's pocketsphinx-testdata keeps its recorded speech (openly licensed, BSD-2). */
export const TESTDATA = "/usr/share/pocketsphinx/test/data"
