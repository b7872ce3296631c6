// Package ident owns the names bottle's records go by: a session's id (what
// may name a file, [ValidSession]), the ids a bottle tags its lines with
// ("[#t17]", "[#u3]", an observation's number: [Parse]) and the [Mode] a
// bottle is rendered in. render, bottles, locate, the pointer and the
// tools all speak of these; keeping them in a leaf lets each import them
// without importing the others.
//
// It is a leaf: it imports no package of the module, reads no file and
// writes nothing.
package ident
