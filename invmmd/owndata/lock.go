package owndata

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockFile is the file in a fit's output folder that marks it as being written: while a
// fit holds it, a second fit into the same folder is refused (LockedError), so that two
// runs never mix their config.json, results and models. It holds the holder's process id,
// host and command line; the lock itself is the operating system's (flock on Unix), so it
// is released when the holder exits, however it exits, and a file left by a process that
// died is taken over with a note.
const LockFile = ".invmmd-lock"

// lockInfo is what LockFile records of its holder.
type lockInfo struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Command string    `json:"command"`
	Started time.Time `json:"started"`
}

// String names the holder: "process 1234 on host (invmmd fit ..., since 15:04:05)".
func (l lockInfo) String() string {
	return fmt.Sprintf("process %d on %s (%s, since %s)", l.PID, l.Host, cmp.Or(l.Command, "a fit from Go"), l.Started.Format("2006-01-02 15:04:05"))
}

// LockedError is the refusal of an output folder that another fit is writing, or of an
// output file (LockOutputFile) that another command is writing.
type LockedError struct {
	Dir    string // the folder, or the file when File
	Holder string // the holder, as lockInfo.String says
	File   bool   // Dir is an output file, locked by LockOutputFile
}

func (e *LockedError) Error() string {
	if e.File {
		return fmt.Sprintf("%s is being written by %s: two runs writing one file would each compute everything and one replace or refuse the other's; wait for it to finish, or write elsewhere", e.Dir, e.Holder)
	}
	return fmt.Sprintf("%s is being written by %s: two fits into one folder would mix their results; wait for it to finish, or write elsewhere", e.Dir, e.Holder)
}

// LockOutputFile takes, before any work, the lock of the output file path: the file
// path+".lock" beside it, held as a fit holds its folder's (the operating system's lock,
// released when the holder exits however it exits), recording the holder's command line
// command. While one command holds it a second is refused at once with a *LockedError
// naming the holder. release removes the lock file and releases the lock; note says when
// the lock file of a process that ended without releasing it was taken over.
func LockOutputFile(path, command string) (release func() error, note string, err error) {
	l, note, err := takeLock(path+".lock", path, command, true)
	if err != nil {
		return nil, "", err
	}
	return l.release, note, nil
}

// dirLock is a held lock of an output folder.
type dirLock struct {
	path string
	f    *os.File
}

// lockDir takes the lock of the folder dir (which exists) for the command line args
// ("invmmd fit ARGS"; nil for a fit from Go), or returns a *LockedError naming the holder.
// note says when it took over the lock file of a process that ended without releasing it.
func lockDir(dir string, args []string) (*dirLock, string, error) {
	command := ""
	if args != nil {
		command = strings.Join(append([]string{"invmmd", "fit"}, args...), " ")
	}
	return takeLock(filepath.Join(dir, LockFile), dir, command, false)
}

// takeLock takes the lock file path of what (a folder, or an output file when file) for
// the command line command, or returns a *LockedError naming the holder.
func takeLock(path, what, command string, file bool) (*dirLock, string, error) {
	host, _ := os.Hostname()
	me := lockInfo{PID: os.Getpid(), Host: host, Command: command, Started: time.Now()}
	for attempt := 0; attempt < 5; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, "", fmt.Errorf("cannot create its lock %s: %w", path, err)
		}
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, "", fmt.Errorf("locking %s: %w", path, err)
		}
		old := readLockInfo(f)
		if !held {
			f.Close()
			who := "another process"
			if old.PID > 0 {
				who = old.String()
			}
			return nil, "", &LockedError{Dir: what, Holder: who, File: file}
		}
		if !samePath(f, path) { // removed by its holder between our open and our lock: again
			unlock(f)
			f.Close()
			continue
		}
		note := ""
		if old.PID > 0 && (old.PID != me.PID || old.Host != me.Host) {
			note = fmt.Sprintf("took over the lock of %s in %s: that process ended without releasing it, and what it finished is kept", old, what)
		}
		b, _ := json.Marshal(me)
		if err := f.Truncate(0); err == nil {
			_, err = f.WriteAt(append(b, '\n'), 0)
		}
		return &dirLock{path: path, f: f}, note, nil
	}
	return nil, "", fmt.Errorf("locking %s: its lock file kept changing", what)
}

// release removes the lock file and releases the lock; a nil lock does nothing.
func (l *dirLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path)
	unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// readLockInfo reads the holder recorded in an open lock file (zero when unreadable).
func readLockInfo(f *os.File) lockInfo {
	var l lockInfo
	b := make([]byte, 4096)
	n, _ := f.ReadAt(b, 0)
	_ = json.Unmarshal(b[:n], &l)
	return l
}

// samePath reports whether the open file f is still the file at path.
func samePath(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
