/**
 * How common words and phrases are in arXiv text: the statistics a note's
 * keywords are ranked by (a word every abstract uses says little about a
 * concept; a phrase few abstracts use says a lot).
 *
 * The port hides how terms are normalised (stemming, stop words): the core
 * asks about terms as the note writes them.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"

/** What the statistics say of one term (a word or a phrase of adjacent words). */
export interface TermStat {
  /** The term as asked. */
  readonly term: string
  /**
   * Documents of the reference corpus that contain the term (a phrase: its
   * words adjacent, in order). See `count` for how exact it is.
   */
  readonly documentFrequency: number
  /**
   * "exact": counted. "below": rarer than the statistics record (a rare word,
   * or words seldom adjacent): fewer than `documentFrequency`. "unknown": the
   * statistics cannot count it (a compound holding a letter, number or
   * function word they skip, "q-learning", "bag-of-words"); `documentFrequency`
   * is then their floor, as for a rare term.
   */
  readonly count: "exact" | "below" | "unknown"
  /** The statistics ignore the term or one of its words (a function word, or boilerplate such as "novel"). */
  readonly ignored: boolean
}

/** The statistics of a batch of terms, in the order asked. */
export interface TermLookup {
  /** Documents in the reference corpus. */
  readonly documents: number
  readonly stats: ReadonlyArray<TermStat>
}

/** The statistics service. Lookups are local and cannot fail. */
export interface TermStatsService {
  /** Where the statistics come from, for reports. */
  readonly source: string
  readonly lookup: (terms: ReadonlyArray<string>) => Effect.Effect<TermLookup>
  /**
   * Optional: the words several titles share that the known texts lack ({@link SharedWordsOptions}), most titles ×
   * rarity first, each as a title first wrote it; `ask` reads them as the field's words for its question (the titles
   * of its most cited relevant papers). Absent: `ask` re-ranks nothing with them.
   */
  readonly sharedWords?: ((titles: ReadonlyArray<string>, known: ReadonlyArray<string>, options: SharedWordsOptions) => Effect.Effect<ReadonlyArray<string>>) | undefined
}

/** Which shared words {@link TermStatsService.sharedWords} returns. */
export interface SharedWordsOptions {
  /** The fewest titles that must use a word (a word counted once a title). */
  readonly least: number
  /** A word more of the reference corpus's documents use than this share says little (0..1). */
  readonly share: number
  /** How many words at most. */
  readonly count: number
}

/** @since 0.1.0 */
export class TermStatsPort extends Context.Tag("arxiv-companion/TermStatsPort")<TermStatsPort, TermStatsService>() {}
