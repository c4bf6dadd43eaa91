/**
 * The Porter stem of a lower-case word, memoised: the offline search and the
 * local judge stem the same vocabulary over and over.
 *
 * @since 0.1.0
 */
import { stemmer } from "stemmer"

const cache = new Map<string, string>()

/** Porter stem of a lower-case word (memoised, bounded). */
export const stem = (word: string): string => {
  let s = cache.get(word)
  if (s === undefined) {
    s = stemmer(word)
    if (cache.size > 200_000) cache.clear()
    cache.set(word, s)
  }
  return s
}
