//go:build !linux

package transcript

import (
	"errors"
	"os"
)

func mapFile(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }
func unmapFile([]byte)                      {}
func dropPages([]byte)                      {}
func populate([]byte)                       {}
