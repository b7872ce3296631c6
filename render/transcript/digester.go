package transcript

import (
	"encoding/json"

	"bottle/render/digest"
)

// digestText words a tool call with package digest. The line's
// toolUseResult is not decoded (it is the largest field of most lines), so
// digests come from the tool_use input and the tool_result content.
// The reader hands on inputs from lines it has checked: valid JSON.
func digestText(name string, input json.RawMessage, result string, hasResult, isError bool, cwd string) (string, string) {
	c := digest.Call{Name: name, Input: input, InputValid: true, HasResult: hasResult, Result: result, IsError: isError}
	return digest.Both(c, cwd)
}

// digestRaw is digestText for a result whose content is a JSON string,
// handed on undecoded: body is the valid body of that string. The digest
// decodes only what it reads (most tools read the first lines).
// noU tells that the body holds no \uXXXX escape; with it, esc (if not
// nil) marks the body's escaped characters from bit at on
// (digest.Call.ResultEscapes).
func digestRaw(name string, input json.RawMessage, body []byte, noU bool, esc []uint64, at int, isError bool, cwd string) (string, string) {
	c := digest.Call{Name: name, Input: input, InputValid: true, HasResult: true, ResultRaw: body,
		ResultNoUnicodeEscapes: noU, IsError: isError}
	if noU {
		c.ResultEscapes, c.ResultEscapesAt = esc, at
	}
	return digest.Both(c, cwd)
}
