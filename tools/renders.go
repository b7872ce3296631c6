package tools

import (
	"slices"
	"sync"
)

// Renders keeps the bottles read_bottle rendered but did not write, so
// that the pages after the first continue the render the first was cut
// from.
//
// read_bottle never replaces a bottle file that exists: it runs while the
// model's turn is under way, when the host may be reading that same file
// for a call made beside it, and a file renamed over between the host's
// open and its check of what it opened is refused (Claude Code checks
// that the path it approved is the file it read). The hooks, which run
// between turns, write the bottle; read_bottle pages a fresh render from
// memory until they do.
//
// A nil *Renders keeps nothing: later pages are then read from the file.
type Renders struct {
	mu   sync.Mutex
	kept []keptRender // newest first
}

// keptRenders is how many renders a server keeps: a few sessions paged
// at once, each bottle at most a few hundred kilobytes at the default
// budget.
const keptRenders = 8

type keptRender struct {
	id, version string
	data        []byte
}

// keep remembers data as the render of session id named version.
func (r *Renders) keep(id, version string, data []byte) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kept = slices.DeleteFunc(r.kept, func(k keptRender) bool { return k.id == id && k.version == version })
	r.kept = slices.Insert(r.kept[:min(len(r.kept), keptRenders-1)], 0, keptRender{id, version, data})
}

// get returns the kept render of session id named version, or nil.
func (r *Renders) get(id, version string) []byte {
	if r == nil || version == "" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.kept {
		if k.id == id && k.version == version {
			return k.data
		}
	}
	return nil
}
