/**
 * Technical words other languages borrowed from English (or share with it
 * through Latin and Greek), matched against arXiv's own vocabulary: a
 * Cyrillic loanword is transliterated ("дискриминатор" → discriminator,
 * "градієнтний" → gradient), a French, Spanish or German word has its suffix
 * rewritten ("régularisation" → regularization, "convolucional" →
 * convolutional, "konvolutionell" → convolutional, "stochastisch" →
 * stochastic). A candidate counts only when arXiv's English records use it,
 * and of several the most used wins; short words (under 5 letters) are never
 * matched this way, as chance spellings are too likely.
 *
 * @since 0.1.0
 */
import type { GlossaryLanguage } from "../../core/language.js"
import type { Vocabulary } from "./lexicon.js"

/** A cognate's English form and how it was found. */
export interface Cognate {
  readonly english: string
  readonly via: "cognate" | "transliteration"
}

/** Cyrillic letters and their Latin spellings in loanwords, the usual first. */
const CYRILLIC: Readonly<Record<string, ReadonlyArray<string>>> = {
  а: ["a"], б: ["b"], в: ["v"], г: ["g", "h"], ґ: ["g"], д: ["d"], е: ["e"], ё: ["e"], є: ["e", "ie"], ж: ["zh", "g", "j"],
  з: ["z", "s"], и: ["i", "y"], і: ["i"], ї: ["i", "yi"], й: ["i", "y", ""], к: ["k", "c"], л: ["l"], м: ["m"], н: ["n"],
  о: ["o"], п: ["p"], р: ["r"], с: ["s", "c"], т: ["t"], у: ["u", "oo", "o"], ф: ["f", "ph"], х: ["h", "ch", "x"], ц: ["c", "ts"],
  ч: ["ch"], ш: ["sh"], щ: ["sch", "shch"], ъ: [""], ы: ["y", "i"], ь: [""], э: ["e"], ю: ["u", "yu", "iu"],
  я: ["ia", "ya", "a"], "'": [""]
}

/** Endings of Russian and Ukrainian nouns and adjectives (cases, numbers, genders). */
const NOUN = "(?:а|я|у|ю|ом|ем|ой|ей|ою|ею|ы|и|і|ї|ов|ев|ів|їв|ам|ям|ами|ями|ах|ях|е|є|ь|ью)?"
const ADJ = "(?:ый|ий|ій|ой|ая|яя|а|я|ое|ее|е|є|ые|ие|і|ї|ых|их|іх|ого|его|ього|ому|ему|ьому|ым|им|ім|ую|юю|у|ою|ею|ой)"

/** Cyrillic suffixes and their English spellings (the stem before them is transliterated). */
const CYRILLIC_SUFFIXES: ReadonlyArray<readonly [RegExp, ReadonlyArray<string>]> = [
  [new RegExp(`(?:изаци|ізаці)(?:я|и|ю|ей|єю|ї|й)?$`), ["ization"]],
  [new RegExp(`(?:аци|аці)(?:я|и|ю|ей|єю|ї|й|ям|ями|ях)?$`), ["ation"]],
  [new RegExp(`(?:иц|іц)(?:ия|ія|ии|ії|ию|ію)$`), ["ition"]],
  [new RegExp(`кц(?:ия|ія|ии|ії|ию|ію|ий|ій)$`), ["ction"]],
  [new RegExp(`ц(?:ия|ія|ии|ії|ию|ію|ий|ій)$`), ["tion"]],
  [new RegExp(`(?:ционн|ційн)${ADJ}$`), ["tional"]],
  [new RegExp(`(?:изационн|ізаційн)${ADJ}$`), ["izational"]],
  [new RegExp(`(?:ическ|ичн|ічн)${ADJ}$`), ["ic", "ical"]],
  [new RegExp(`(?:ивн)${ADJ}$`), ["ive"]],
  [new RegExp(`(?:альн)${ADJ}$`), ["al"]],
  [new RegExp(`(?:ентн)${ADJ}$`), ["ent"]],
  [new RegExp(`(?:антн)${ADJ}$`), ["ant"]],
  [new RegExp(`(?:онн|онн)${ADJ}$`), ["onal", "on"]],
  [new RegExp(`(?:н)${ADJ}$`), ["", "al", "ic"]],
  [new RegExp(`(?:изм|ізм)${NOUN}$`), ["ism"]],
  // verbs: "стабилизировать" → stabilize, "нормалізувати" → normalize, "оптимизирует" → optimize
  [/(?:изировать|изовать|изирует|изируют|изировал[аио]?|ізувати|ізує|ізують)$/, ["ize"]],
  [/(?:ировать|ирует|ируют|ировал[аио]?|увати|ує|ують)$/, ["ate", "e"]],
  [new RegExp(`(?:ия|ія|ии|ії|ию|ію|ией|ією)$`), ["y", "ia", "ion"]],
  [new RegExp(`(?:ер|ор|ар)${NOUN}$`), ["er", "or", "ar"]],
  // no plural "s": keywords are singular, and "старой" → "star" + "s" would pass the length bar
  [new RegExp(`${NOUN}$`), ["", "e"]]
]

/** The letters a suffix rule leaves of the word: the match itself is replaced by the English suffix. */
const MAX_VARIANTS = 256

/** Latin spellings of a Cyrillic stem, the usual first, at most {@link MAX_VARIANTS}. */
export const transliterations = (stem: string): ReadonlyArray<string> => {
  let out = [""]
  for (const ch of stem) {
    const options = CYRILLIC[ch] ?? (/[a-z0-9-]/.test(ch) ? [ch] : undefined)
    if (options === undefined) return []
    const next: Array<string> = []
    for (const prefix of out) for (const o of options) if (next.length < MAX_VARIANTS) next.push(prefix + o)
    out = next
  }
  // "кс" is "x" in loanwords ("контекст" → context), "ьо" is "io"
  return [...new Set(out.flatMap((v) => [v, v.replace(/(?:ks|cs)/g, "x")]))]
}

/** Latin-script suffixes by language: a word ending so is tried with the English endings given. */
const LATIN_SUFFIXES: Readonly<Record<"fr" | "es" | "de", ReadonlyArray<readonly [RegExp, ReadonlyArray<string>]>>> = {
  fr: [
    [/isations?$/, ["ization", "isation"]],
    [/ations?$/, ["ation"]],
    [/(?:ite|ites)$/, ["ity"]],
    [/iques?$/, ["ic", "ical", "ics"]],
    [/(?:if|ifs|ive|ives)$/, ["ive", "ional"]],
    [/(?:onnel|onnels|onnelle|onnelles)$/, ["onal"]],
    [/(?:el|els|elle|elles)$/, ["al"]],
    [/(?:ateur|ateurs|atrice|atrices)$/, ["ator", "ater"]],
    [/(?:eur|eurs)$/, ["er", "or"]],
    [/(?:isme|ismes)$/, ["ism"]],
    [/(?:ien|iens|ienne|iennes)$/, ["ian"]],
    [/(?:aire|aires)$/, ["ary", "ar"]],
    [/(?:oire|oires)$/, ["ory"]],
    [/(?:ie|ies)$/, ["y"]],
    [/(?:ee|ees|e|es)$/, ["ed", "e", ""]],
    [/s?$/, ["", "s"]]
  ],
  es: [
    [/izacion(?:es)?$/, ["ization"]],
    [/acion(?:es)?$/, ["ation"]],
    [/cion(?:es)?$/, ["tion"]],
    [/sion(?:es)?$/, ["sion"]],
    [/cional(?:es)?$/, ["tional"]],
    [/idad(?:es)?$/, ["ity"]],
    [/(?:ico|ica|icos|icas)$/, ["ic", "ical"]],
    [/(?:ivo|iva|ivos|ivas)$/, ["ive"]],
    [/(?:al|ales)$/, ["al"]],
    [/(?:ente|entes)$/, ["ent"]],
    [/(?:encia|encias)$/, ["ence"]],
    [/(?:ancia|ancias)$/, ["ance"]],
    [/(?:ador|adores|adora|adoras)$/, ["ator", "er"]],
    [/(?:ia|ias)$/, ["y", "ia"]],
    [/(?:ismo|ismos)$/, ["ism"]],
    [/(?:ado|ada|ados|adas)$/, ["ed"]],
    [/(?:ario|aria|arios|arias)$/, ["ary"]],
    [/(?:orio|oria|orios|orias)$/, ["ory"]],
    [/(?:o|a|os|as|e|es)$/, ["", "e"]]
  ],
  de: [
    [/isierung(?:en)?$/, ["ization"]],
    [/ierung(?:en)?$/, ["ization", "ation"]],
    [/(?:ation|ationen)$/, ["ation"]],
    [/(?:tion|tionen)$/, ["tion"]],
    [/(?:itat|itaten)$/, ["ity"]],
    [/(?:isch|ische|ischen|ischer|isches|ischem)$/, ["ic", "ical"]],
    [/(?:ell|elle|ellen|eller|elles|ellem)$/, ["al"]],
    [/(?:ik|iken)$/, ["ics", "ic"]],
    [/(?:ie|ien)$/, ["y"]],
    [/(?:iv|ive|iven|iver|ives)$/, ["ive"]],
    [/(?:ar|are|aren|arer)$/, ["ary"]],
    [/(?:ismus)$/, ["ism"]],
    [/(?:enz|enzen)$/, ["ence"]],
    [/(?:anz|anzen)$/, ["ance"]],
    [/(?:or|oren|ors)$/, ["or"]],
    [/(?:e|en|er|es|em|n|s)$/, ["", "e", "s"]]
  ]
}

/** German spells c as k and z ("Konvergenz", "sequenziell"); the English cognate has c and t. */
const germanSpellings = (stem: string): ReadonlyArray<string> =>
  [...new Set([stem, stem.replace(/k/g, "c"), stem.replace(/k/g, "c").replace(/z/g, "t"), stem.replace(/z/g, "c"), stem.replace(/k/g, "c").replace(/z/g, "c")])]

/** The English candidates of a folded word of `language`, before the vocabulary is asked. */
export const candidates = (language: GlossaryLanguage, folded: string): ReadonlyArray<Cognate> => {
  const out: Array<Cognate> = []
  if (language === "ru" || language === "uk") {
    for (const [suffix, endings] of CYRILLIC_SUFFIXES) {
      const m = suffix.exec(folded)
      if (m === null) continue
      const stem = folded.slice(0, m.index)
      if (stem.length < 3) continue
      for (const latin of transliterations(stem)) {
        for (const e of endings) out.push({ english: latin + e, via: "transliteration" })
      }
    }
    return out
  }
  for (const [suffix, endings] of LATIN_SUFFIXES[language]) {
    const m = suffix.exec(folded)
    if (m === null) continue
    const stem = folded.slice(0, m.index)
    if (stem.length < 3) continue
    // Spanish puts an e before s and a consonant ("estocástico", "espectral"): the English word has none
    const stems: Array<string> = language === "de"
      ? [...germanSpellings(stem)]
      : language === "es" && /^es[^aeiou]/.test(stem)
      ? [stem, stem.slice(1)]
      : [stem]
    // Spanish and French write "c" where Greek loanwords have "ch" in English ("estocástico", "mécanique")
    if (language === "es" || language === "fr") for (const s of [...stems]) stems.push(s.replace(/c(?=[aou])/, "ch"))
    for (const s of stems) for (const e of endings) out.push({ english: s + e, via: "cognate" })
  }
  return out
}

/** A cognate candidate needs this many English arXiv records: a form seen once or twice may be a typo or a name. */
const MIN_RECORDS = 3
/** Shorter words are never matched by spelling: "сеть" is not "set", "red" is not Spanish for "red". */
const MIN_LETTERS = 5

/** A candidate spelled as the word itself is English only when arXiv's English records use it this often ("apprentissage" is in 3). */
export const MIN_SAME_SPELLING = 20

/** The English word a foreign word borrows, when arXiv uses one of its candidates; the most used wins. */
export const cognate = (language: GlossaryLanguage, folded: string, vocabulary: Vocabulary): Cognate | undefined => {
  if ([...folded].length < MIN_LETTERS) return undefined
  let best: Cognate | undefined
  let bestRecords = 0
  for (const c of candidates(language, folded)) {
    // a transliteration has more spellings to hit a word by chance ("старой" → stare): one letter more
    if (c.english.length < MIN_LETTERS + (c.via === "transliteration" ? 1 : 0)) continue
    const n = vocabulary.records(c.english)
    const same = c.english === folded || `${c.english}s` === folded || c.english === `${folded}s`
    if (same && n < MIN_SAME_SPELLING) continue
    if (n >= MIN_RECORDS && n > bestRecords) {
      best = c
      bestRecords = n
    }
  }
  return best
}
