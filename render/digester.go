package render

import (
	"encoding/json"

	"bottle/render/digest"
)

// defaultDigester words tool calls with package digest. The line's
// toolUseResult is not decoded (it is the largest field of most lines), so
// digests come from the tool_use input and the tool_result content.
func defaultDigester(name string, input json.RawMessage, result string, hasResult, isError bool, cwd string) (string, string) {
	c := digest.Call{Name: name, Input: input, HasResult: hasResult, Result: result, IsError: isError}
	return digest.Both(c, cwd)
}
