/**
 * The sizes the companion accepts, in one place: anything larger is refused
 * before any work, in one line that says the limit. README "Limits" lists
 * them with what each cost before it was there. No imports: the stdio face
 * reads this before anything else is loaded.
 *
 * @since 0.1.0
 */

/**
 * The longest prompt or question (characters). A prompt names a note ("Find
 * papers related to my 'Transformers' note"); a 1 MB prompt took 13.4 s over
 * MCP before anything was refused.
 */
export const MAX_PROMPT_CHARS = 2_000

/**
 * The longest concept note read (characters, about 1 MB of text: a book
 * chapter). A 50 MB note took 74.6 s and 1.39 GB to find its keywords.
 */
export const MAX_NOTE_CHARS = 1_000_000

/**
 * The longest search query (characters). arXiv reads its query from the URL,
 * and longer queries only lose meaning (space-separated terms are ANDed).
 */
export const MAX_QUERY_CHARS = 2_000

/**
 * The largest request either face reads (bytes): an MCP frame over stdio, a
 * body over HTTP (the MCP HTTP face and the local page). A 50 MB stdio frame
 * took 18.7 s and ~1 GB.
 */
export const MAX_REQUEST_BYTES = 4_000_000

/** A number as the messages write it: 1,000,000. */
export const shownSize = (n: number): string => n.toLocaleString("en-US")

/**
 * The largest spoken question (bytes of audio, any format): under the faces'
 * request limit once base64-encoded (4/3 larger) for MCP. 2.5 MB holds 78 s of
 * 16 kHz 16-bit mono WAV, 14 s of 44.1 kHz stereo.
 */
export const MAX_AUDIO_BYTES = 2_500_000

/** The longest spoken question (seconds): a question is a sentence or two. */
export const MAX_AUDIO_SECONDS = 60

/** The longest text read aloud (characters): an answer of up to 20 papers, a sentence each. */
export const MAX_SPOKEN_CHARS = 6_000
