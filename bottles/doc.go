// Package bottles owns the bottles folder: where a session's bottle lives
// ([Path]), writing one atomically with the folder and file modes
// docs/format.md names ([Write]), and archiving a bottle on /clear with the pruning of
// old archives ([Archive], [Prune]).
//
// It stores bytes it is given and renders nothing; the folder itself comes
// from the caller (locate.Env.BottlesDir). It may import ident (to
// check session ids) and internal/atomicfile.
package bottles
