package locate

import "bottle/internal/folders"

// Env is the environment bottle resolves its paths from (see
// [folders.Env]).
type Env = folders.Env

// OSEnv returns the environment of the running process (see
// [folders.OSEnv]).
func OSEnv() Env { return folders.OSEnv() }
