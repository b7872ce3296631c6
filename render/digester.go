package render

import "encoding/json"

// defaultDigester words tool calls. Until the digest package lands it names
// the tool only.
func defaultDigester(name string, input json.RawMessage, result string, hasResult, isError bool, cwd string) (string, string) {
	return name, name
}
