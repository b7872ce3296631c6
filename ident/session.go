package ident

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadSession means an id fails [SessionPattern] and must not touch a
// path.
var ErrBadSession = errors.New("invalid session id")

// SessionPattern is the grammar of a session id, as a regular expression
// for schemas; [ValidSession] also refuses "..".
const SessionPattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`

// ValidSession reports whether id may be used in a file name:
// SessionPattern, and no "..". It checks by hand: compiling the pattern's
// {0,127} cost every hook's start-up half a millisecond and 1,700
// allocations.
func ValidSession(id string) bool {
	if len(id) == 0 || len(id) > 128 || !idByte(id[0]) || id[0] == '.' || id[0] == '_' || id[0] == '-' {
		return false
	}
	for i := 1; i < len(id); i++ {
		if !idByte(id[i]) {
			return false
		}
	}
	return !strings.Contains(id, "..")
}

// idByte reports whether c may stand in a session id (after its first byte).
func idByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// CheckSession returns an [ErrBadSession] error naming id (cut to 64
// bytes) when id is not a valid session id.
func CheckSession(id string) error {
	if !ValidSession(id) {
		return fmt.Errorf("%w %q", ErrBadSession, truncateID(id))
	}
	return nil
}

func truncateID(id string) string {
	if len(id) > 64 {
		return id[:64] + "…"
	}
	return id
}

// Mode says which sources a bottle was rendered from.
type Mode string

// Modes of a bottle: full from a transcript, reconstructed from
// claude-mem's records alone.
const (
	ModeFull          Mode = "full"
	ModeReconstructed Mode = "reconstructed"
)
