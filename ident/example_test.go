package ident_test

import (
	"fmt"

	"bottle/ident"
)

// Ids are read as the bottle writes them, with or without '#', in either
// case.
func ExampleParse() {
	for _, s := range []string{"#102401", "T17", " u3 ", "t-1"} {
		kind, canonical, n := ident.Parse(s)
		fmt.Printf("%q: kind %d, %q, %d\n", s, kind, canonical, n)
	}
	// Output:
	// "#102401": kind 1, "102401", 102401
	// "T17": kind 2, "t17", 17
	// " u3 ": kind 3, "u3", 3
	// "t-1": kind 0, "", 0
}
