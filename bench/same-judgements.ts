/**
 * Whether this checkout judges exactly as another build does: a speed-up of the judge must not change a single
 * judgement. Runs the BUILT CLI of both (`npm run build` first) offline on the demo note and on tuning notes of
 * eval/retrieval (never a held-out one), plus a dry digest of them all, and compares byte for byte: the `--json`
 * report of each run (every candidate's relevance, novelty and rationale, to the last digit), the note it writes,
 * and the digest's `--json`. Only the generation time is read out of the comparison.
 *
 *   node --import tsx bench/same-judgements.ts [--baseline main|<commit>|<built dir>] [--notes dropout,neural-tts]
 *
 * The baseline defaults to the commit where this branch left main (`git merge-base HEAD main`), built once into a
 * cache directory (bench/baseline.ts). Exits 1 on the first report that differs, printing where.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { readLandmarks, readNote, SPLIT_SETS } from "../eval/retrieval-data.js"
import { builtTree, git, ROOT } from "./baseline.js"

/**
 * Tuning notes whose titles exercise each part of the concept match: a plain concept, an acronym (TTS), a word
 * family (generalization), alternatives ("(cocktail party)", "and"), a modifier ("with CTC"), a pair written as
 * one word (non-convex), three-word pairs one apart (human pose estimation).
 */
const DEFAULT_NOTES = [
  "dropout",
  "neural-tts",
  "generalization-in-deep-learning",
  "speech-separation",
  "speech-recognition-ctc",
  "saddle-points",
  "pose-estimation",
  "edge-detection",
  "noisy-labels",
  "multi-armed-bandits"
]
const DEMO = "Transformers Concept Note"

const argValue = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  return at < 0 ? undefined : process.argv[at + 1]
}

const tuning = new Set<string>(SPLIT_SETS.tuning)
const notes = (argValue("notes")?.split(",") ?? DEFAULT_NOTES).map((name) => {
  const note = readLandmarks().find((n) => n.note === name)
  if (note === undefined) throw new Error(`no note ${name} in eval/retrieval/landmarks.json`)
  if (!tuning.has(note.split)) throw new Error(`${name} is of split ${note.split}, not a tuning split: never compared here`)
  return note
})

const baseline = builtTree(argValue("baseline") ?? git("merge-base", "HEAD", "main"))
const trees = [ROOT, baseline] as const

/** The example vault with the notes added, each as "<title>.md", in a fresh directory. */
const freshVault = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "same-judgements-"))
  fs.cpSync(path.join(ROOT, "examples", "vault"), dir, { recursive: true })
  for (const note of notes) fs.writeFileSync(path.join(dir, `${note.title}.md`), readNote(note))
  return dir
}

/** The generation time is the only thing two runs may differ in. */
const normalise = (text: string): string =>
  text
    .replace(/"generatedAt": ?"[^"]*"/g, "\"generatedAt\": \"…\"")
    .replace(/^(generated|generated_at|generatedAt|updated): .*$/gm, "$1: …")

const cli = (root: string, args: ReadonlyArray<string>): string => {
  const r = spawnSync(process.execPath, [path.join(root, "dist", "cli.js"), ...args], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 1 << 28,
    env: { ...process.env, ARXIV_COMPANION_OFFLINE: "" }
  })
  if (r.status !== 0) throw new Error(`${root}: ${args.join(" ")} exited ${r.status}: ${r.stderr.trim()}`)
  return r.stdout
}

/** One prompt on both trees: the report and the written note of each. */
const runBoth = (title: string): Array<{ readonly report: string; readonly note: string }> =>
  trees.map((root) => {
    const vault = freshVault()
    try {
      const report = cli(root, ["run", `Find papers related to my '${title}'`, "--vault", vault, "--offline", "--json"])
      const written = (JSON.parse(report) as { written: { path: string } }).written.path
      const note = fs.readFileSync(path.isAbsolute(written) ? written : path.join(vault, written), "utf8")
      return { report: normalise(report), note: normalise(note) }
    } finally {
      fs.rmSync(vault, { recursive: true, force: true })
    }
  })

/** The first line where two texts differ, for the message. */
const firstDifference = (a: string, b: string): string => {
  const la = a.split("\n")
  const lb = b.split("\n")
  const i = la.findIndex((line, k) => line !== lb[k])
  const at = i < 0 ? Math.min(la.length, lb.length) : i
  return `line ${at + 1}:\n  this:     ${la[at]?.slice(0, 200)}\n  baseline: ${lb[at]?.slice(0, 200)}`
}

let differ = 0
const check = (what: string, a: string, b: string, size: string) => {
  if (a === b) console.log(`same  ${what} (${size})`)
  else {
    differ++
    console.log(`DIFF  ${what}: ${firstDifference(a, b)}`)
  }
}

console.log(`this checkout ${ROOT} against ${baseline}`)
for (const title of [DEMO, ...notes.map((n) => n.title)]) {
  const [mine, theirs] = runBoth(title)
  const candidates = (JSON.parse(mine!.report) as { candidates: Array<unknown> }).candidates.length
  check(`"${title}": --json report`, mine!.report, theirs!.report, `${candidates} candidates, ${mine!.report.length} bytes`)
  check(`"${title}": written note`, mine!.note, theirs!.note, `${mine!.note.length} bytes`)
}
// the digest judges every note's candidates in one batch (the judge's `many`): the other way in
const digests = trees.map((root) => {
  const vault = freshVault()
  try {
    return normalise(cli(root, ["digest", "--vault", vault, "--offline", "--dry-run", "--since", "2017-01-01", "--json"]))
  } finally {
    fs.rmSync(vault, { recursive: true, force: true })
  }
})
check("digest --dry-run --json", digests[0]!, digests[1]!, `${digests[0]!.length} bytes`)
console.log(differ === 0 ? "every judgement the same" : `${differ} output(s) differ`)
process.exitCode = differ === 0 ? 0 : 1
