package digest

import (
	"net/url"
	"strings"

	"bottle/privacy"
)

// webTools are the describers of the web tools.
var webTools = map[string]describer{
	"WebFetch":  describeWebFetch,
	"WebSearch": describeWebSearch,
}

func describeWebFetch(c *Call, _ string, _ bool) description {
	var in struct {
		URL string `json:"url"`
	}
	decodeInput(c, &in)
	return description{salient: showURL(in.URL)}
}

// showURL is a URL's host and path: no scheme, credentials, query or
// fragment, which is where tokens live.
func showURL(raw string) string {
	raw = strings.TrimSpace(privacy.Strip(raw))
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return clean(u.Host+strings.TrimSuffix(u.Path, "/"), salientMax)
	}
	raw, _, _ = strings.Cut(raw, "?")
	raw, _, _ = strings.Cut(raw, "#")
	return clean(raw, salientMax)
}

func describeWebSearch(c *Call, _ string, _ bool) description {
	var in struct {
		Query string `json:"query"`
	}
	decodeInput(c, &in)
	return description{salient: quoted(clean(in.Query, salientMax-2))}
}
