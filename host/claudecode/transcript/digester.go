package transcript

import (
	"encoding/json"

	"bottle/internal/jsonscan"

	"bottle/render/digest"
)

// digestText words a tool call with package digest. The line's
// toolUseResult is not read (it is the largest field of most lines), so
// digests come from the tool_use input and the tool_result content, but
// for a result persisted to a file: its content is a 2 KB preview, and
// structured, the toolUseResult, holds what the tool found.
// The reader hands on inputs from lines it has checked: valid JSON.
// c is the caller's scratch Call (digest.DescribeCall), left zero.
func digestText(c *digest.Call, name string, input json.RawMessage, result string, structured []byte, hasResult, isError bool, cwd string) digest.Line {
	*c = digest.Call{Name: name, Input: input, InputValid: true, HasResult: hasResult, Result: result, IsError: isError, Structured: structured}
	f := digest.DescribeCall(c, cwd)
	*c = digest.Call{}
	return f
}

// digestRaw is digestText for a result whose content is a JSON string,
// handed on undecoded with what the scanner knows of it. The digest
// decodes only what it reads (most tools read the first lines).
func digestRaw(c *digest.Call, name string, input json.RawMessage, result jsonscan.String, structured []byte, isError bool, cwd string) digest.Line {
	*c = digest.Call{Name: name, Input: input, InputValid: true, HasResult: true, ResultRaw: result, IsError: isError, Structured: structured}
	f := digest.DescribeCall(c, cwd)
	*c = digest.Call{}
	return f
}
