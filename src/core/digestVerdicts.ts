/**
 * The student's verdicts, read from the vault's own Markdown, and the per-note
 * profile learnt from them. Pure.
 *
 * - Held: every arXiv paper the vault already names (an id, an arxiv.org link
 *   or an arXiv DOI in any note: a Related Papers note, a digest, a reading
 *   list). A held paper is never announced as new.
 * - Rejected: in a digest note, under a concept note's section, a paper whose
 *   "not for me" box is ticked (`- [x] not for me`) or whose line is struck
 *   through (`~~…~~`). It is never suggested again for that note.
 * - Kept: the papers the concept note links itself and those its Related
 *   Papers note lists as kept.
 * - Profile: a term-weight model over the words of what the vault shows of
 *   each kept and rejected paper (its title, and the summary or line beside
 *   it): the share of kept papers using a word minus the share of rejected
 *   papers using it, leaving out the concept note's own words (the topic
 *   every candidate shares). A candidate's shift is that weight summed over its
 *   title and abstract words, scaled and bounded (±{@link PROFILE_MAX_SHIFT}).
 *
 * @since 0.4.0
 */
import { singular } from "./keywords.js"
import { findPaperMentions } from "./namedPapers.js"
import { STOP_WORDS, words } from "./text.js"

/** The gesture's label: the box under each paper of a digest. */
export const NOT_FOR_ME = "not for me"

/** The most a profile moves a paper's relevance, up or down. */
export const PROFILE_MAX_SHIFT = 0.1

/** Every arXiv id the given notes name, and the first note naming each. */
export const heldPapers = (notes: ReadonlyArray<{ readonly path: string; readonly text: string }>): ReadonlyMap<string, string> => {
  const held = new Map<string, string>()
  for (const n of notes) {
    for (const m of findPaperMentions(n.text).ids) if (!held.has(m.arxivId)) held.set(m.arxivId, n.path)
  }
  return held
}

/** A paper a student gave a verdict on, with the words the vault shows of it. */
export interface VerdictPaper {
  readonly arxivId: string
  readonly text: string
}

/** A digest note's verdicts: per concept note title, the papers rejected. */
export type DigestVerdicts = ReadonlyMap<string, ReadonlyArray<VerdictPaper>>

const SECTION = /^##\s+\[\[([^\]|#^]+)(?:[#^][^\]|]*)?(?:\|[^\]]*)?\]\]\s*$/
const PAPER_HEAD = /^(?:~~)?- (?:\[[ xX]\] )?(.*)$/
const TICKED = new RegExp(`^\\s+- \\[[xX]\\]\\s+${NOT_FOR_ME}\\b`, "i")
const STRUCK = /~~[^~]+~~/

/** The arXiv id a digest's paper line links, if it is one. */
const paperIdOf = (line: string): string | undefined => findPaperMentions(line).ids[0]?.arxivId

/**
 * The papers a digest note's student rejected, per concept note title: a
 * ticked "not for me" box under the paper, or its line struck through.
 */
export const digestVerdicts = (text: string): DigestVerdicts => {
  const out = new Map<string, Array<VerdictPaper>>()
  let section: string | undefined
  let current: { id: string; text: string; rejected: boolean } | undefined
  const close = () => {
    if (section !== undefined && current !== undefined && current.rejected) {
      const list = out.get(section) ?? []
      if (!list.some((p) => p.arxivId === current!.id)) list.push({ arxivId: current.id, text: current.text })
      out.set(section, list)
    }
    current = undefined
  }
  for (const raw of text.replace(/\r\n?/g, "\n").split("\n")) {
    const line = raw.replace(/\s+$/, "")
    const s = SECTION.exec(line)
    if (s !== null) {
      close()
      section = s[1]!.trim()
      continue
    }
    if (/^#{1,2}\s/.test(line)) {
      close()
      section = undefined
      continue
    }
    if (section === undefined) continue
    const head = PAPER_HEAD.exec(line)
    if (head !== null) {
      const id = paperIdOf(line)
      if (id !== undefined) {
        close()
        current = { id, text: stripMarkup(head[1]!), rejected: STRUCK.test(line) }
      }
      continue
    }
    if (current === undefined) continue
    if (TICKED.test(line)) current.rejected = true
    else if (/^\s+- Summary:/.test(line)) current.text += ` ${stripMarkup(line.replace(/^\s+- Summary:/, ""))}`
  }
  close()
  return out
}

/** The words of a Markdown line without its links' targets and its markup. */
const stripMarkup = (line: string): string =>
  line.replace(/\]\([^)]*\)/g, "]").replace(/https?:\/\/\S+/g, " ").replace(/[\\*_~[\]`#>|]/g, " ").replace(/\s+/g, " ").trim()

/** The papers a note names, each with the line it names it on (what the vault says of it). */
export const linkedPapers = (text: string): ReadonlyArray<VerdictPaper> => {
  const out: Array<VerdictPaper> = []
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    for (const m of findPaperMentions(line).ids) {
      if (!out.some((p) => p.arxivId === m.arxivId)) out.push({ arxivId: m.arxivId, text: stripMarkup(line) })
    }
  }
  return out
}

/** The words a profile reads: content words of three letters or more, singular, once each. */
export const profileTerms = (text: string): ReadonlySet<string> =>
  new Set(words(text.toLowerCase()).map(singular).filter((w) => w.length >= 3 && !STOP_WORDS.has(w) && !/^\d+$/.test(w)))

/** A per-note profile: word → weight (positive: kept papers use it more than rejected ones). */
export interface Profile {
  readonly weights: ReadonlyMap<string, number>
  readonly kept: number
  readonly rejected: number
}

/**
 * The profile learnt from the kept and the rejected papers (each counted once,
 * by id). The words of the concept note itself (`noteText`) are left out: the
 * judge already weighs them, and a rejected paper shares them with every
 * paper on the topic; what the profile learns is the other words.
 */
export const learnProfile = (kept: ReadonlyArray<VerdictPaper>, rejected: ReadonlyArray<VerdictPaper>, noteText = ""): Profile => {
  const topic = profileTerms(noteText)
  const rejectedIds = new Set(rejected.map((r) => r.arxivId))
  const keptDocs = dedupe(kept.filter((k) => !rejectedIds.has(k.arxivId))).map((k) => profileTerms(k.text))
  const rejectedDocs = dedupe(rejected).map((r) => profileTerms(r.text))
  const weights = new Map<string, number>()
  const add = (docs: ReadonlyArray<ReadonlySet<string>>, sign: number) => {
    for (const d of docs) for (const t of d) if (!topic.has(t)) weights.set(t, (weights.get(t) ?? 0) + sign / docs.length)
  }
  add(keptDocs, 1)
  add(rejectedDocs, -1)
  for (const [t, w] of weights) if (Math.abs(w) < 1e-9) weights.delete(t)
  return { weights, kept: keptDocs.length, rejected: rejectedDocs.length }
}

const dedupe = (papers: ReadonlyArray<VerdictPaper>): ReadonlyArray<VerdictPaper> => {
  const seen = new Set<string>()
  return papers.filter((p) => !seen.has(p.arxivId) && seen.add(p.arxivId) !== undefined)
}

/**
 * How much each word says among the papers a note's search found: 1 for a word
 * one paper uses, falling to 0 for a word every paper uses (log(N/df) / log N).
 * A word all candidates share ("propose", "model") cannot move one above another.
 */
export const poolRarity = (texts: ReadonlyArray<string>): ReadonlyMap<string, number> => poolRarityOf(texts.map(profileTerms))

/** {@link poolRarity} over the candidates' words already read ({@link profileTerms}: a digest reads each paper once). */
export const poolRarityOf = (termSets: ReadonlyArray<ReadonlySet<string>>): ReadonlyMap<string, number> => {
  const df = new Map<string, number>()
  for (const terms of termSets) for (const w of terms) df.set(w, (df.get(w) ?? 0) + 1)
  const n = termSets.length
  if (n < 2) return new Map([...df.keys()].map((w) => [w, 1]))
  return new Map([...df].map(([w, d]) => [w, Math.log(n / d) / Math.log(n)]))
}

/** How much a profile's summed weight moves relevance before the bound: a paper sharing a handful of a rejected paper's words drops by ~0.1. */
const SHIFT_SCALE = 0.25

/**
 * The shift a profile gives a paper: its words' weights summed over the square
 * root of its word count (long abstracts are not favoured), each weighed by
 * its rarity among the note's candidates when given ({@link poolRarity}), scaled and bounded
 * to ±{@link PROFILE_MAX_SHIFT}; 0 with no verdicts. Deterministic.
 */
export const profileShift = (profile: Profile, title: string, abstract: string, rarity?: ReadonlyMap<string, number>): number =>
  profile.weights.size === 0 ? 0 : profileShiftOf(profile, profileTerms(`${title} ${abstract}`), rarity)

/** {@link profileShift} of a paper whose words ({@link profileTerms} of its title and abstract) are already read. */
export const profileShiftOf = (profile: Profile, terms: ReadonlySet<string>, rarity?: ReadonlyMap<string, number>): number => {
  if (profile.weights.size === 0 || terms.size === 0) return 0
  let sum = 0
  for (const t of terms) sum += (profile.weights.get(t) ?? 0) * (rarity?.get(t) ?? 1)
  const raw = (SHIFT_SCALE * sum) / Math.sqrt(terms.size)
  const bounded = Math.max(-PROFILE_MAX_SHIFT, Math.min(PROFILE_MAX_SHIFT, raw))
  return Math.round(bounded * 1000) / 1000
}
