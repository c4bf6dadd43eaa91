/**
 * The note's central concept, for the local judge: what a paper must be about
 * to be worth a student's reading, as opposed to sharing the note's words.
 *
 * The concept is read from the note's title (what the student named the note
 * after). Its units are the title's informative stems and stem pairs, each
 * weighted by how much more informative it is in arXiv text than a floor
 * ("learning", "deep", "models" weigh nothing; "language inference" weighs
 * more than "language" and "inference" together). A title of alternatives
 * ("Edge and contour detection", "Speech separation (cocktail party)") is
 * about any of them. A unit is matched by the stem itself or by a variant the
 * shipped statistics know: another inflection Porter keeps apart ("noisy" /
 * "noise", "anomaly" / "anomalous"), the two words written as one
 * ("non-convex" / "nonconvex"), a pair in either order ("noisy labels" /
 * "label noise"), and the stems the shipped word vectors place next to it (a
 * share of the credit, by cosine). A paper whose title names the concept
 * earns a unit whole; one whose abstract does, a share that grows with how often.
 *
 * @since 0.2.0
 */
import type { DfTable, TermVectors } from "./score.js"
import { stem as stemOf, type Token, tokenize } from "./tokenize.js"

/** The knobs of the concept match (chosen on the graded tuning notes, eval/README.md). */
export interface ConceptParams {
  /** IDF a stem needs before it weighs in the concept (weight = IDF − floor) */
  readonly conceptIdfFloor: number
  /** IDF a stem pair needs before it weighs in the concept (weight = (IDF − floor) · conceptPairWeight) */
  readonly conceptPairFloor: number
  readonly conceptPairWeight: number
  /** the credit of one mention in the abstract alone (the title earns 1) */
  readonly conceptAbstractCredit: number
  /** the extra credit of each further mention in the abstract, up to 1 */
  readonly conceptRepeatCredit: number
  /** a word-vector neighbour of a unit counts when its cosine reaches this (1 = never) */
  readonly conceptNeighbourCosine: number
  /** a neighbour's credit, times its cosine */
  readonly conceptNeighbourCredit: number
  /** how many neighbours of each unit are looked at */
  readonly conceptNeighbours: number
  /** how much of a unit's credit one alternative of the title earns alone ("edge" of "edge and contour detection") */
  readonly conceptAlternative: number
  /** the weight of the words after "with", "in", "for", "using", … relative to the head's ("with CTC", "in CNNs") */
  readonly conceptModifier: number
  /** a title of up to this many content words names its concept; one of conceptLongTitle words or more, none */
  readonly conceptShortTitle: number
  readonly conceptLongTitle: number
  /**
   * whether a pair of the concept is matched by its two words one apart in the paper too ("human pose estimation"
   * for "human … estimation"), as the concept forms its pairs (false: adjacent only, the rule before)
   */
  readonly conceptPairsApart?: boolean | undefined
  /**
   * How many stems the word vectors place nearest to the title's informative stems taken together (their SIF
   * centroid without the corpus's common direction) are credited as forms of each of its stem units (0 or absent:
   * none, a note's rule). `ask` reads a question in a student's words as the title: its neighbours are the field's
   * words for the same concept ("catastroph" beside "forget old tasks"). Off everywhere: on the 95 tuning questions
   * it did not pass its cross-validation (eval/ask/README.md, ninth round); the ask replay's `--rejudge` reads it.
   */
  readonly conceptTextNeighbours?: number | undefined
  /**
   * Whether the title's compounds are matched in their other spelling (prec10, eval/precision/README.md; absent:
   * no): two adjacent title words written as one in the paper ("lip reading" / "lipreading"), whether or not the
   * shipped tables know the pair, as a form of each word and of their pair; a title word that splits into a pair the
   * bigram table knows, by the pair ("pretraining" / "pre-training", "multitask" / "multi-task").
   */
  readonly conceptCompounds?: boolean | undefined
  /**
   * The credit of a pair unit whose two words (any of their forms) are both in the paper's title, at any distance and
   * in either order ("Deep Embedding for Clustering" for "deep clustering"; prec10; absent or 0: none)
   */
  readonly conceptPairsInTitle?: number | undefined
  /**
   * A word-vector neighbour of a unit's stem at this cosine or more, named in the paper's title, earns its cosine
   * (prec10; absent: none beyond `conceptNeighbourCosine`'s share)
   */
  readonly conceptTitleNeighbourCosine?: number | undefined
  /**
   * A pair unit one of whose words weighs less than this alone ("deep", "neural": a generic modifier) is matched by
   * the other word's forms too, at their credit (prec10; absent: none)
   */
  readonly conceptGenericPair?: number | undefined
  /** the least cosine of such a neighbour to the centroid */
  readonly conceptTextCosine?: number | undefined
  /** its credit, times its cosine */
  readonly conceptTextCredit?: number | undefined
}

/** One unit of the concept: a stem or a stem pair of the note's title, and what stands for it. */
export interface ConceptUnit {
  /** the stem, or the two stems joined by a space */
  readonly key: string
  readonly weight: number
  /** which alternative of the title it belongs to (0 when the title has one) */
  readonly part: number
  /** the stems (a stem unit) or the stem pairs, either order (a pair unit) that stand for it, with their credit */
  readonly forms: ReadonlyMap<string, number>
  /** the long forms of an acronym the corpus defines ("text-to-speech" for TTS), matched in the paper's text */
  readonly phrases?: ReadonlyArray<RegExp>
  /** whether the unit is of the words after "with", "in", "for", … (how or where, not what) */
  readonly modifier?: boolean
  /** forms that count only when the paper's title names them, with their credit (`conceptTitleNeighbourCosine`) */
  readonly titleForms?: ReadonlyMap<string, number>
  /** a pair unit's two words' forms, for `conceptPairsInTitle` */
  readonly halves?: readonly [ReadonlyMap<string, number>, ReadonlyMap<string, number>]
}

/** The concept, prepared once per note. */
export interface CentralConcept {
  readonly units: ReadonlyArray<ConceptUnit>
  /** whether a unit is a word family (concept.ts `familyKey`), so a paper's words are read for families too */
  readonly families: boolean
  /** how many alternatives the title lists */
  readonly parts: number
  /**
   * How much the concept is required, in [0, 1]: 1 for a title that names a concept in a few words, falling to 0
   * for a title as long as a paper's, which describes a paper rather than naming a concept
   */
  readonly strength: number
}

const idfOf = (df: number, n: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5))

/** An inflection, not a derivation: what "modelling", "generalized" or "models" add to their word. */
const INFLECTED = /(?:ing|ed|es|s)$/
/** A derived adjective ("distributional", "generative"): it says what kind, not what, so it keeps its stem. */
const ADJECTIVE = /(?:al|ive|ic|ous|ful|able|ible|ary)$/

/**
 * The family of a word Porter cut by 4 letters or more beyond an inflection ("generalization" → "gener"): its first
 * (stem length + 3) letters, marked "~" ("~generali"), which keeps "generalization" and "generalize" together and
 * apart from "general" and "generate"; a word Porter cut less ("modelling" → "model") or a derived adjective
 * ("distributional") has no family of its own.
 */
export const familyKey = (t: Token): string | undefined => {
  const base = t.word.replace(INFLECTED, "")
  return base.length >= t.stem.length + 4 && t.word.startsWith(t.stem) && !ADJECTIVE.test(base)
    ? `~${t.word.slice(0, t.stem.length + 3)}`
    : undefined
}

/** What Porter leaves on one form of a word and not another ("noisi" / "nois", "summari" / "summar"). */
const INFLECTION = /^(?:i|e|s|y|al|li|ic)$/

/** The stems of the table that are this stem with an inflection Porter keeps (see INFLECTION) more or less. */
const inflections = (stem: string, table: DfTable): ReadonlyArray<string> => {
  if (stem.length < 4) return []
  const out: Array<string> = []
  // a stem and its inflection share their first four letters (the shorter has four or more): only those are read
  for (const other of byPrefix(table.unigrams).get(stem.slice(0, 4)) ?? []) {
    if (other === stem || Math.abs(other.length - stem.length) > 2) continue
    const [short, long] = other.length < stem.length ? [other, stem] : [stem, other]
    if (short.length >= 4 && long.startsWith(short) && INFLECTION.test(long.slice(short.length))) out.push(other)
  }
  return out
}

/** The table's stems of four letters or more by their first four, each list in the table's order; built once a table. */
const byPrefix = (unigrams: ReadonlyMap<string, number>): ReadonlyMap<string, ReadonlyArray<string>> => {
  let index = prefixes.get(unigrams)
  if (index === undefined) {
    const built = new Map<string, Array<string>>()
    for (const stem of unigrams.keys()) {
      if (stem.length < 4) continue
      const head = stem.slice(0, 4)
      const list = built.get(head)
      if (list === undefined) built.set(head, [stem])
      else list.push(stem)
    }
    prefixes.set(unigrams, index = built)
  }
  return index
}
const prefixes = new WeakMap<ReadonlyMap<string, number>, ReadonlyMap<string, ReadonlyArray<string>>>()

const dot = (a: Float32Array, b: Float32Array): number => {
  let d = 0
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!
  return d
}

/** The stems the word vectors place nearest to `stem`, with their cosine. */
const neighbours = (
  stem: string,
  vectors: TermVectors | undefined,
  n: number,
  floor: number
): ReadonlyArray<readonly [string, number]> => {
  const v = vectors?.get(stem)
  if (v === undefined || vectors?.stems === undefined || n <= 0 || floor >= 1) return []
  // the same stem in the titles of many notes (a digest): read against every other stem once
  let known = nearest.get(vectors)
  if (known === undefined || known.size >= 10_000) nearest.set(vectors, known = new Map())
  const key = `${stem}\t${n}\t${floor}`
  const hit = known.get(key)
  if (hit !== undefined) return hit
  const found = nearestTo(stem, v, vectors, vectors.stems, n, floor)
  known.set(key, found)
  return found
}
const nearest = new WeakMap<TermVectors, Map<string, ReadonlyArray<readonly [string, number]>>>()

const nearestTo = (
  stem: string,
  v: Float32Array,
  vectors: TermVectors,
  stems: ReadonlyArray<string>,
  n: number,
  floor: number
): ReadonlyArray<readonly [string, number]> => {
  const best: Array<readonly [string, number]> = []
  for (const other of stems) {
    if (other === stem) continue
    const c = dot(v, vectors.get(other)!)
    if (c >= floor) best.push([other, c])
  }
  return best.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n)
}

/** Each vector store's stems as unit vectors, one after another (dims floats each), built once a store. */
const unitMatrix = (vectors: TermVectors, stems: ReadonlyArray<string>): Float32Array => {
  let m = unitMatrices.get(vectors)
  if (m === undefined) {
    const dims = vectors.dims
    m = new Float32Array(stems.length * dims)
    for (let i = 0; i < stems.length; i++) {
      const v = vectors.get(stems[i]!)!
      let n = 0
      for (let c = 0; c < dims; c++) n += v[c]! * v[c]!
      const norm = Math.sqrt(n) || 1
      for (let c = 0; c < dims; c++) m[i * dims + c] = v[c]! / norm
    }
    unitMatrices.set(vectors, m)
  }
  return m
}
const unitMatrices = new WeakMap<TermVectors, Float32Array>()

/**
 * The stems nearest (by cosine) to some stems taken together (their SIF-weighted centroid without the corpus's
 * common direction, as the judge builds a text's vector), most similar first, at most `n`, the given stems left out.
 * None when the model knows none of them.
 *
 * @since 0.10.0
 */
export const nearestToStems = (
  given: Iterable<string>,
  vectors: TermVectors,
  n: number
): ReadonlyArray<{ readonly stem: string; readonly similarity: number }> => {
  const stems = vectors.stems ?? []
  const own = new Set(given)
  const dims = vectors.dims
  const c = new Float32Array(dims)
  for (const s of own) {
    const v = vectors.get(s)
    if (v === undefined) continue
    const w = vectors.weight(s)
    for (let i = 0; i < dims; i++) c[i]! += w * v[i]!
  }
  let along = 0
  for (let i = 0; i < dims; i++) along += c[i]! * vectors.common[i]!
  let norm = 0
  for (let i = 0; i < dims; i++) {
    c[i]! -= along * vectors.common[i]!
    norm += c[i]! * c[i]!
  }
  norm = Math.sqrt(norm)
  if (norm === 0 || n <= 0) return []
  const m = unitMatrix(vectors, stems)
  const best: Array<{ stem: string; similarity: number }> = []
  for (let i = 0; i < stems.length; i++) {
    if (own.has(stems[i]!)) continue
    let s = 0
    for (let k = 0, at = i * dims; k < dims; k++) s += m[at + k]! * c[k]!
    s /= norm
    if (best.length < n || s > best[best.length - 1]!.similarity) {
      best.push({ stem: stems[i]!, similarity: s })
      best.sort((a, b) => b.similarity - a.similarity || (a.stem < b.stem ? -1 : 1))
      if (best.length > n) best.pop()
    }
  }
  return best
}

/** Where a title's head ends and what it is done with or applied to begins. */
const MODIFIER = /\s(?:with|in|for|using|via|from|on|under)\s/i

/** Where a title lists alternatives: "X and Y", "X & Y", "X (Y)", "X: Y", "X / Y", "X vs Y". */
const ALTERNATIVES = /\s+(?:and|or|vs\.?|versus)\s+|[&()/:;,]/i

/** A long form as a pattern: its words in order, apart by spaces or hyphens, the last one maybe plural. */
const phrasePattern = (form: string): RegExp =>
  new RegExp(`\\b${form.split(" ").map((w) => w.replace(/[^a-z0-9]/g, "")).join("[\\s-]+")}s?\\b`, "gi")

/** The long forms the corpus defines for a title word written as an acronym ("TTS", "GANs"), if any. */
const longForms = (word: string, table: DfTable): ReadonlyArray<string> =>
  table.acronyms?.get(word) ?? (word.endsWith("s") ? table.acronyms?.get(word.slice(0, -1)) : undefined) ?? []

/**
 * The title's compounds in their other spelling, by the stem they are a form of: two adjacent words written as one
 * ("lip reading" → "lipread", for "lip" and "read"), and a word that splits into two the bigram table knows as a
 * pair ("pretraining" → "pre train"; the halves two letters or more).
 */
const compoundForms = (
  parts: ReadonlyArray<ReadonlyArray<Token | null>>,
  table: DfTable
): ReadonlyMap<string, ReadonlyArray<string>> => {
  const out = new Map<string, Array<string>>()
  const add = (stem: string, form: string) => {
    if (form === stem) return
    const list = out.get(stem)
    if (list === undefined) out.set(stem, [form])
    else if (!list.includes(form)) list.push(form)
  }
  for (const tokens of parts) {
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]
      if (t == null) continue
      const u = tokens[i + 1]
      if (u != null) {
        const joined = stemOf(`${t.word}${u.word}`)
        add(t.stem, joined)
        add(u.stem, joined)
      }
      for (let k = 2; k <= t.word.length - 2; k++) {
        const [a] = tokenize(t.word.slice(0, k))
        const [b] = tokenize(t.word.slice(k))
        if (a == null || b == null) continue
        const pair = `${a.stem} ${b.stem}`
        if (table.bigrams.has(pair)) add(t.stem, pair)
      }
    }
  }
  return out
}

/** The central concept of a note: its title's informative stems and stem pairs, and their variants. */
export const centralConcept = (title: string, table: DfTable, p: ConceptParams, vectors?: TermVectors): CentralConcept => {
  const units: Array<ConceptUnit> = []
  const seen = new Set<string>()
  // a part's words after "with", "in", "for", … say how or where ("Speech recognition with CTC"): they weigh less
  const heads: Array<number> = []
  const parts = title.split(ALTERNATIVES).flatMap((text) => {
    const at = MODIFIER.exec(text)
    const head = tokenize(at === null ? text : text.slice(0, at.index))
    const tail = at === null ? [] : tokenize(text.slice(at.index))
    if (!head.some((t) => t !== null) && !tail.some((t) => t !== null)) return []
    heads.push(head.length)
    return [[...head, null, ...tail]]
  })
  // only a word the title writes in capitals is read as an acronym ("TTS", "GANs"; not "map" or "list")
  const capitals = new Set([...title.matchAll(/\b[A-Z]{2,6}s?\b/g)].map((m) => m[0].toLowerCase()))
  const stemForms = new Map<string, Map<string, number>>()
  // the title's compounds in their other spelling (conceptCompounds): a form of each of their words
  const compounds = p.conceptCompounds === true ? compoundForms(parts, table) : undefined
  const formsOf = (t: Token): Map<string, number> => {
    const known = stemForms.get(t.stem)
    if (known !== undefined) return known
    const forms = new Map<string, number>([[t.stem, 1]])
    for (const s of inflections(t.stem, table)) forms.set(s, 1)
    for (const s of compounds?.get(t.stem) ?? []) forms.set(s, 1)
    for (const [s, c] of neighbours(t.stem, vectors, p.conceptNeighbours, p.conceptNeighbourCosine)) {
      if (!forms.has(s)) forms.set(s, p.conceptNeighbourCredit * c)
    }
    stemForms.set(t.stem, forms)
    return forms
  }
  // a near neighbour named in the paper's title earns its cosine (conceptTitleNeighbourCosine)
  const titleNeighbours = (stem: string): ReadonlyMap<string, number> | undefined => {
    const floor = p.conceptTitleNeighbourCosine
    if (floor === undefined || floor >= 1) return undefined
    const near = neighbours(stem, vectors, p.conceptNeighbours, floor)
    return near.length === 0 ? undefined : new Map(near)
  }
  parts.forEach((tokens, part) => {
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]
      if (t == null) continue
      const scale = i > heads[part]! ? p.conceptModifier : 1
      // an acronym the corpus defines is matched by its long forms too ("TTS": "text-to-speech"), however rare it is
      const spelled = capitals.has(t.word) ? longForms(t.word, table) : []
      const df = table.unigrams.get(t.stem) ?? (spelled.length > 0 ? table.minUnigramDf / 2 : undefined)
      // a word Porter conflates with unrelated ones ("generalization" → "gener") is weighed and matched by its family
      const family = familyKey(t)
      const fdf = family === undefined ? undefined : table.families?.get(family)
      const stemWeight = df === undefined ? 0 : idfOf(df, table.documents) - p.conceptIdfFloor
      const familyWeight = fdf === undefined ? 0 : idfOf(fdf, table.documents) - p.conceptIdfFloor
      // only where the stem weighs nothing: a family is narrower than its stem ("normalization" is not "normalized")
      if (family !== undefined && stemWeight <= 0 && familyWeight > 0 && !seen.has(family)) {
        seen.add(family)
        units.push({ key: family, weight: familyWeight * scale, part, forms: new Map([[family, 1]]), modifier: scale !== 1 })
      } else if (df !== undefined && !seen.has(t.stem)) {
        // a stem no abstract uses (a name, the student's shorthand) cannot be required of a paper
        seen.add(t.stem)
        const weight = stemWeight * scale
        if (weight > 0) {
          const near = titleNeighbours(t.stem)
          units.push({
            key: t.stem,
            weight,
            part,
            forms: formsOf(t),
            modifier: scale !== 1,
            ...(spelled.length === 0 ? {} : { phrases: spelled.map(phrasePattern) }),
            ...(near === undefined ? {} : { titleForms: near })
          })
        }
      }
      // the stem pairs of a run of content words, adjacent or one apart ("video frame prediction": "video prediction")
      for (const j of [i + 1, i + 2]) {
        const u = tokens[j]
        if (u == null || (j === i + 2 && tokens[i + 1] == null) || u.stem === t.stem) continue
        const key = `${t.stem} ${u.stem}`
        const pdf = table.bigrams.get(key) ?? table.bigrams.get(`${u.stem} ${t.stem}`)
        if (pdf === undefined || seen.has(key)) continue
        seen.add(key)
        const weight = (idfOf(pdf, table.documents) - p.conceptPairFloor) * p.conceptPairWeight *
          (i > heads[part]! ? p.conceptModifier : 1)
        if (weight <= 0) continue
        const forms = new Map<string, number>()
        for (const [a, ca] of formsOf(t)) {
          for (const [b, cb] of formsOf(u)) {
            const c = Math.min(ca, cb)
            if (c > (forms.get(`${a} ${b}`) ?? 0)) forms.set(`${a} ${b}`, c)
            if (c > (forms.get(`${b} ${a}`) ?? 0)) forms.set(`${b} ${a}`, c)
          }
        }
        // the two words written as one ("non-convex" → "nonconvex", "multi-task" → "multitask")
        const joined = stemOf(`${t.word}${u.word}`)
        if (j === i + 1 && (table.unigrams.has(joined) || compounds !== undefined)) forms.set(joined, 1)
        // a generic word of the pair ("deep", "neural"): the pair is matched by its other word too
        const generic = p.conceptGenericPair ?? 0
        if (generic > 0) {
          const alone = (x: Token) => {
            const d = table.unigrams.get(x.stem)
            return d === undefined ? 0 : idfOf(d, table.documents) - p.conceptIdfFloor
          }
          for (const [weak, other] of [[t, u], [u, t]] as const) {
            if (alone(weak) >= generic) continue
            for (const [s, c] of formsOf(other)) if (c > (forms.get(s) ?? 0)) forms.set(s, c)
          }
        }
        const halves = (p.conceptPairsInTitle ?? 0) > 0 ? { halves: [formsOf(t), formsOf(u)] as const } : {}
        units.push({ key, weight, part, forms, modifier: i > heads[part]!, ...halves })
      }
    }
  })
  // the field's words for the title's concept (a question in a student's words): the stems nearest to its stem
  // units taken together, credited as forms of each of its head's stem units
  const around = p.conceptTextNeighbours ?? 0
  if (around > 0 && vectors?.stems !== undefined) {
    const own = units.filter((u) => !u.key.includes(" ") && !u.key.startsWith("~") && u.modifier !== true)
    const floor = p.conceptTextCosine ?? 0
    const credit = p.conceptTextCredit ?? 0
    const near = nearestToStems(own.map((u) => u.key), vectors, around).filter((x) => x.similarity >= floor)
    for (const u of own) {
      // a unit's forms map is its stem's (formsOf), shared by the pairs built from it before: a copy is extended
      const extended = new Map(u.forms)
      for (const x of near) if ((extended.get(x.stem) ?? 0) < credit * x.similarity) extended.set(x.stem, credit * x.similarity)
      units[units.indexOf(u)] = { ...u, forms: extended }
    }
  }
  const words = parts.reduce((n, ts) => n + ts.filter((t) => t !== null).length, 0)
  // a title of names or shorthand only ("Zorvik") names no concept arXiv text can be matched on: nothing is required
  const strength = units.length === 0 ? 0
    : Math.min(1, Math.max(0, (p.conceptLongTitle - words) / Math.max(1, p.conceptLongTitle - p.conceptShortTitle)))
  return { units, families: units.some((u) => u.key.startsWith("~")), parts: parts.length, strength }
}

/** What of a paper the concept is matched against: stems and stem pairs ("a b") of its title, and counts in its abstract. */
export interface ConceptEvidence {
  readonly title: ReadonlySet<string>
  readonly abstract: ReadonlyMap<string, number>
  /** the paper's title and abstract as written, for the long forms of an acronym */
  readonly text?: { readonly title: string; readonly abstract: string }
  /** the stem pairs one word apart in a run of content words ("human estim" of "human pose estimation") */
  readonly apart?: { readonly title: ReadonlySet<string>; readonly abstract: ReadonlyMap<string, number> } | undefined
}

const mentions = (re: RegExp, text: string): number => {
  re.lastIndex = 0
  let n = 0
  while (re.exec(text) !== null) n++
  return n
}

/** How much of the concept a paper is about ({@link conceptMatch}), and how much its title alone names. */
export interface ConceptMatchParts {
  readonly match: number
  /** the same share from the paper's title alone (the title naming a unit earns it whole; the abstract nothing) */
  readonly title: number
  /** the share of the title's head (its words before "with", "in", "for", …) the paper is about */
  readonly head: number
  /** the share of the title's modifier words (after "with", "in", …) the paper is about; undefined when it has none */
  readonly modifier: number | undefined
}

/**
 * How much of the concept a paper is about, in [0, 1]: each unit's best credit (the title naming it earns 1, the
 * abstract a share growing with its mentions), weighted by the unit's informativeness; for a title of
 * alternatives, the better of the whole and its best alternative alone (at `conceptAlternative`). A note whose
 * title holds no informative term has no concept to require: 1.
 */
export const conceptMatch = (concept: CentralConcept, paper: ConceptEvidence, p: ConceptParams): number =>
  conceptMatchParts(concept, paper, p).match

/** {@link conceptMatch}, with the share the paper's title alone earns. */
export const conceptMatchParts = (concept: CentralConcept, paper: ConceptEvidence, p: ConceptParams): ConceptMatchParts => {
  const sum = new Array<number>(concept.parts).fill(0)
  const inTitle = new Array<number>(concept.parts).fill(0)
  const total = new Array<number>(concept.parts).fill(0)
  const side = { head: 0, headTotal: 0, modifier: 0, modifierTotal: 0 }
  for (const u of concept.units) {
    let best = 0
    let title = 0
    const pair = u.key.includes(" ") ? paper.apart : undefined
    for (const [s, credit] of u.forms) {
      const named = paper.title.has(s) || pair?.title.has(s) === true
      if (named) title = Math.max(title, credit)
      if (credit <= best) continue
      if (named) best = credit
      else {
        const n = (paper.abstract.get(s) ?? 0) + (pair?.abstract.get(s) ?? 0)
        if (n > 0) best = Math.max(best, credit * Math.min(1, p.conceptAbstractCredit + p.conceptRepeatCredit * (n - 1)))
      }
    }
    if (u.titleForms !== undefined) {
      for (const [s, credit] of u.titleForms) {
        if (credit > best && paper.title.has(s)) best = credit
        if (credit > title && paper.title.has(s)) title = credit
      }
    }
    const apartCredit = p.conceptPairsInTitle ?? 0
    if (u.halves !== undefined && apartCredit > 0 && best < apartCredit) {
      const [a, b] = u.halves
      const named = (forms: ReadonlyMap<string, number>) => {
        let c = 0
        for (const [s, credit] of forms) if (credit > c && paper.title.has(s)) c = credit
        return c
      }
      const both = apartCredit * Math.min(named(a), named(b))
      if (both > best) best = both
      if (both > title) title = both
    }
    if (best < 1 && u.phrases !== undefined && paper.text !== undefined) {
      for (const re of u.phrases) {
        if (mentions(re, paper.text.title) > 0) best = title = 1
        else {
          const n = mentions(re, paper.text.abstract)
          if (n > 0) best = Math.max(best, Math.min(1, p.conceptAbstractCredit + p.conceptRepeatCredit * (n - 1)))
        }
      }
    }
    sum[u.part]! += u.weight * best
    inTitle[u.part]! += u.weight * title
    total[u.part]! += u.weight
    if (u.modifier === true) side.modifier += u.weight * best, side.modifierTotal += u.weight
    else side.head += u.weight * best, side.headTotal += u.weight
  }
  const whole = total.reduce((a, b) => a + b, 0)
  if (whole === 0) return { match: 1, title: 1, head: 1, modifier: undefined }
  let best = sum.reduce((a, b) => a + b, 0) / whole
  let title = inTitle.reduce((a, b) => a + b, 0) / whole
  if (concept.parts > 1) {
    for (let i = 0; i < concept.parts; i++) {
      if (total[i]! === 0) continue
      best = Math.max(best, p.conceptAlternative * (sum[i]! / total[i]!))
      title = Math.max(title, p.conceptAlternative * (inTitle[i]! / total[i]!))
    }
  }
  return {
    match: best,
    title,
    head: side.headTotal > 0 ? side.head / side.headTotal : 1,
    modifier: side.modifierTotal > 0 ? side.modifier / side.modifierTotal : undefined
  }
}
