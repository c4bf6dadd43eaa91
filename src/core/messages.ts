/**
 * The fixed text of the generated note in the student's language: headings
 * and the sentences that do not depend on the papers. Every language has the
 * same keys (a test checks it); a language the table does not have gets
 * English. Paper titles, summaries and rationales stay as arXiv and the
 * judge have them.
 *
 * @since 0.1.0
 */

/** The keys of the message table. */
export interface Messages {
  /** "Papers related to [[Note]], in the order to read them; …" — before the link. */
  readonly relatedTo: string
  /** … after the link. */
  readonly relatedToEnd: string
  readonly readingOrder: string
  readonly keptPapers: string
  readonly noneCleared: string
  readonly alreadyInNote: string
  readonly alreadyInNoteLine: string
  readonly droppedCandidates: string
  readonly relevantUnrecorded: string
  readonly cutByCap: string
  readonly sharedFoundations: string
  readonly citationMap: string
  readonly howFound: string
  /** "Language of the note" (the callout line that says what was detected). */
  readonly noteLanguage: string
}

const en: Messages = {
  relatedTo: "Papers related to",
  relatedToEnd: ", in the order to read them; how they were found is at the end.",
  readingOrder: "Reading order",
  keptPapers: "Kept papers",
  noneCleared: "No candidate cleared both bars.",
  alreadyInNote: "Already in your note",
  alreadyInNoteLine: "Papers your note names; they are not recommended again.",
  droppedCandidates: "Dropped candidates",
  relevantUnrecorded: "Relevant, impact not recorded",
  cutByCap: "Cut by the cap",
  sharedFoundations: "Shared foundations",
  citationMap: "Citation map",
  howFound: "How these papers were found",
  noteLanguage: "Language of the note"
}

/** The table: English, Ukrainian, Russian, French, German, Spanish. */
export const MESSAGES: Readonly<Record<"en" | "uk" | "ru" | "fr" | "de" | "es", Messages>> = {
  en,
  uk: {
    relatedTo: "Статті, пов'язані з",
    relatedToEnd: ", у порядку читання; як їх знайдено — наприкінці.",
    readingOrder: "Порядок читання",
    keptPapers: "Відібрані статті",
    noneCleared: "Жоден кандидат не пройшов обидва пороги.",
    alreadyInNote: "Уже є у вашій нотатці",
    alreadyInNoteLine: "Статті, які згадує ваша нотатка; їх не рекомендовано знову.",
    droppedCandidates: "Відкинуті кандидати",
    relevantUnrecorded: "Релевантні, без даних про цитування",
    cutByCap: "Не ввійшли через ліміт",
    sharedFoundations: "Спільні основи",
    citationMap: "Карта цитувань",
    howFound: "Як знайдено ці статті",
    noteLanguage: "Мова нотатки"
  },
  ru: {
    relatedTo: "Статьи, связанные с",
    relatedToEnd: ", в порядке чтения; как они найдены — в конце.",
    readingOrder: "Порядок чтения",
    keptPapers: "Отобранные статьи",
    noneCleared: "Ни один кандидат не прошёл оба порога.",
    alreadyInNote: "Уже есть в вашей заметке",
    alreadyInNoteLine: "Статьи, которые называет ваша заметка; они не рекомендуются повторно.",
    droppedCandidates: "Отброшенные кандидаты",
    relevantUnrecorded: "Релевантные, без данных о цитировании",
    cutByCap: "Не вошли из-за лимита",
    sharedFoundations: "Общие основы",
    citationMap: "Карта цитирований",
    howFound: "Как найдены эти статьи",
    noteLanguage: "Язык заметки"
  },
  fr: {
    relatedTo: "Articles liés à",
    relatedToEnd: ", dans l'ordre de lecture ; la façon dont ils ont été trouvés est à la fin.",
    readingOrder: "Ordre de lecture",
    keptPapers: "Articles retenus",
    noneCleared: "Aucun candidat n'a franchi les deux seuils.",
    alreadyInNote: "Déjà dans votre note",
    alreadyInNoteLine: "Articles que votre note cite ; ils ne sont pas recommandés à nouveau.",
    droppedCandidates: "Candidats écartés",
    relevantUnrecorded: "Pertinents, impact non enregistré",
    cutByCap: "Coupés par la limite",
    sharedFoundations: "Fondements communs",
    citationMap: "Carte des citations",
    howFound: "Comment ces articles ont été trouvés",
    noteLanguage: "Langue de la note"
  },
  de: {
    relatedTo: "Arbeiten zu",
    relatedToEnd: ", in der Reihenfolge zum Lesen; wie sie gefunden wurden, steht am Ende.",
    readingOrder: "Lesereihenfolge",
    keptPapers: "Ausgewählte Arbeiten",
    noneCleared: "Kein Kandidat hat beide Schwellen überschritten.",
    alreadyInNote: "Schon in deiner Notiz",
    alreadyInNoteLine: "Arbeiten, die deine Notiz nennt; sie werden nicht erneut empfohlen.",
    droppedCandidates: "Verworfene Kandidaten",
    relevantUnrecorded: "Relevant, Wirkung nicht erfasst",
    cutByCap: "Durch die Obergrenze abgeschnitten",
    sharedFoundations: "Gemeinsame Grundlagen",
    citationMap: "Zitationskarte",
    howFound: "Wie diese Arbeiten gefunden wurden",
    noteLanguage: "Sprache der Notiz"
  },
  es: {
    relatedTo: "Artículos relacionados con",
    relatedToEnd: ", en el orden de lectura; cómo se encontraron está al final.",
    readingOrder: "Orden de lectura",
    keptPapers: "Artículos seleccionados",
    noneCleared: "Ningún candidato superó ambos umbrales.",
    alreadyInNote: "Ya en tu nota",
    alreadyInNoteLine: "Artículos que tu nota menciona; no se recomiendan de nuevo.",
    droppedCandidates: "Candidatos descartados",
    relevantUnrecorded: "Relevantes, impacto no registrado",
    cutByCap: "Recortados por el límite",
    sharedFoundations: "Fundamentos comunes",
    citationMap: "Mapa de citas",
    howFound: "Cómo se encontraron estos artículos",
    noteLanguage: "Idioma de la nota"
  }
}

/** The messages of a language (ISO 639-1), English when the table has none. */
export const messagesFor = (language: string | undefined): Messages =>
  language !== undefined && Object.hasOwn(MESSAGES, language) ? MESSAGES[language as keyof typeof MESSAGES] : en
