// Package jsonscan reads JSON exactly as encoding/json accepts it, fast,
// and decodes only what its caller asks for: the transcript reader scans
// lines of hundreds of megabytes of JSONL with it, and digests read tool
// results with it still escaped.
//
// A [Scanner] works in two passes over a line:
//
//  1. [Scanner.Index]: for each 64-byte block, masks of quotes, backslashes,
//     control bytes and bytes >= 0x80 (one AVX2 + PCLMULQDQ kernel on amd64,
//     portable SWAR Go elsewhere, compared bit for bit by tests) give the
//     line's bitmaps of unescaped quotes, escaped characters and high bytes.
//     Control bytes inside strings and bad escapes are found here: they make
//     the line invalid.
//  2. The walk: the caller's recursive descent ([Scanner.Skip],
//     [Scanner.ObjKey], [Scanner.Str] and the rest) validates the structure,
//     jumping over each string with the quote bitmap, so the values it does
//     not want (tool results, images, thinking) are never decoded.
//
// Semantics follow encoding/json exactly (the transcript reader's
// differential fuzz test pins them): the same lines are valid, keys match
// struct fields exactly or case-insensitively with Unicode simple folding
// ([FieldSet]), strings decode with U+FFFD for invalid UTF-8 and lone
// surrogates ([Decode]), and nesting deeper than [MaxDepth] is an error.
//
// A string body the index has seen can be measured without decoding it: its
// decoded length ([Scanner.StrLen], a popcount of the escape bitmap), its
// UTF-8 validity (looking only at the high bytes), and, as a [String], its
// newlines ([String.Newlines]). The decoders ([Decode], [DecodePrefix],
// [Append], [Len]) work on any valid body.
//
// Bodies and Strings point into the line indexed; a String's bitmap is the
// scanner's and is valid until the next Index. Callers that keep text keep
// a copy.
//
// It imports only the standard library; it knows nothing of transcripts.
package jsonscan
