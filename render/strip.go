package render

import "bottle/render/privacy"

func stripPrivate(s string) string { return privacy.Strip(s) }
