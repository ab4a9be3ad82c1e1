//go:build !unix

package owndata

import "os"

// tryLock takes the lock where flock is unavailable: the lock file is advisory only (a
// second fit is not refused), and its holder is recorded all the same.
func tryLock(f *os.File) (bool, error) { return true, nil }

// unlock does nothing where flock is unavailable.
func unlock(f *os.File) {}
