package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// tailBytes is how much of a transcript's end LastEntryTime reads: entries
// are a few KB, rarely a few hundred (pasted images).
const tailBytes = 1 << 20

// LastEntryTime is the timestamp of the last main-thread entry of the
// transcript at path that has one, read from the file's last megabyte
// only; zero when that part holds none. It is a session's last activity
// for listings, which cannot afford to read whole transcripts.
func LastEntryTime(path string) (time.Time, error) {
	f, err := openRegular(path)
	if err != nil {
		return time.Time{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return time.Time{}, fmt.Errorf("read transcript %s: %w", path, err)
	}
	off := max(fi.Size()-tailBytes, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return time.Time{}, fmt.Errorf("read transcript %s: %w", path, err)
	}
	if off == 0 {
		buf = bytes.TrimPrefix(buf, byteOrderMark)
	} else {
		// The first line is cut: skip it.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		} else {
			buf = nil
		}
	}
	for len(buf) > 0 {
		line := buf
		if i := bytes.LastIndexByte(bytes.TrimRight(buf, "\n"), '\n'); i >= 0 {
			line, buf = buf[i+1:], buf[:i]
		} else {
			buf = nil
		}
		var e struct {
			Timestamp   string `json:"timestamp"`
			IsSidechain bool   `json:"isSidechain"`
		}
		if json.Unmarshal(bytes.TrimSpace(line), &e) != nil || e.IsSidechain || e.Timestamp == "" {
			continue
		}
		if ts := parseTime(e.Timestamp); !ts.IsZero() {
			return ts, nil
		}
	}
	return time.Time{}, nil
}
