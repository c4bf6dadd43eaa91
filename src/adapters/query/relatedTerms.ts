/**
 * Words the recorded arXiv corpus uses beside a question's own: the stems the
 * shipped term vectors (a skip-gram model of the same 36k abstracts the
 * document frequencies come from) place nearest to the question's words taken
 * together (their SIF-weighted centroid, without the corpus's common
 * direction, as the local judge builds a text's vector), so that "forget old
 * tasks" points at "catastroph(ic)" and "inputs crafted to fool" at
 * "impercept(ible)" and "adversari(al)". Read once per process, on first use
 * (the local judge reads the same vectors).
 *
 * @since 0.9.0
 */
import { nearestToStems } from "../judge/concept.js"
import { arxivTermVectors } from "../judge/termVectors.js"
import { stems as stemsOf } from "../judge/tokenize.js"

/** How many nearest stems are returned, before the caller's filters. */
const NEAREST = 12

/**
 * The stems nearest (by cosine) to a text's words taken together, most similar first, at most {@link NEAREST}; the
 * text's own stems are left out. None when the model knows none of its words.
 */
export const nearestToText = (text: string): ReadonlyArray<{ readonly stem: string; readonly similarity: number }> =>
  nearestToStems(stemsOf(text), arxivTermVectors(), NEAREST)
