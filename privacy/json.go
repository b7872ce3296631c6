package privacy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// JSON returns the JSON value raw with f applied to every string in it, keys
// included, re-encoded in the same order with numbers as written, indented
// by indent a level ("" for compact), and without HTML escaping ('<' stays
// '<'). It is how text held in JSON is stripped: the stripper must see what a
// string says, not how it is encoded (\u003cprivate\u003e, \u0061, \/), and
// must not cut through the JSON around it. An error means raw is not one
// JSON value.
func JSON(raw []byte, indent string, f func(string) string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	w := jsonWriter{dec: dec, indent: indent, f: f}
	w.enc = json.NewEncoder(&w.str)
	w.enc.SetEscapeHTML(false)
	if err := w.value(0); err != nil {
		return "", err
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", errors.New("json: text after the value")
	}
	return w.out.String(), nil
}

// StripValue is [Strip] for a value that may hold JSON text, such as an item
// of a claude-mem list column that was not a string: a JSON object or array
// has each of its strings stripped ([JSON]); any other text is stripped
// whole.
func StripValue(s string) string {
	t := strings.TrimSpace(s)
	if t == "" || t[0] != '{' && t[0] != '[' {
		return Strip(s)
	}
	out, err := JSON([]byte(t), "", Strip)
	if err != nil {
		return Strip(s)
	}
	return out
}

type jsonWriter struct {
	dec    *json.Decoder
	enc    *json.Encoder
	str    bytes.Buffer // one encoded string
	out    strings.Builder
	indent string
	f      func(string) string
}

func (w *jsonWriter) value(depth int) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		end := "}"
		if t == '[' {
			end = "]"
		}
		w.out.WriteString(t.String())
		n := 0
		for w.dec.More() {
			if n > 0 {
				w.out.WriteByte(',')
			}
			n++
			w.newline(depth + 1)
			if t == '{' {
				key, err := w.dec.Token()
				if err != nil {
					return err
				}
				k, _ := key.(string)
				w.string(k)
				w.out.WriteByte(':')
				if w.indent != "" {
					w.out.WriteByte(' ')
				}
			}
			if err := w.value(depth + 1); err != nil {
				return err
			}
		}
		if _, err := w.dec.Token(); err != nil {
			return err
		}
		if n > 0 {
			w.newline(depth)
		}
		w.out.WriteString(end)
	case string:
		w.string(t)
	case json.Number:
		w.out.WriteString(t.String())
	case bool:
		if t {
			w.out.WriteString("true")
		} else {
			w.out.WriteString("false")
		}
	case nil:
		w.out.WriteString("null")
	}
	return nil
}

func (w *jsonWriter) string(s string) {
	w.str.Reset()
	_ = w.enc.Encode(w.f(s)) // a string always encodes
	w.out.Write(bytes.TrimSuffix(w.str.Bytes(), []byte("\n")))
}

func (w *jsonWriter) newline(depth int) {
	if w.indent == "" {
		return
	}
	w.out.WriteByte('\n')
	for range depth {
		w.out.WriteString(w.indent)
	}
}
