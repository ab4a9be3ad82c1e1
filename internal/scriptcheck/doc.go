// Package scriptcheck holds tests of the shell scripts' logic that can run on any machine,
// without root or a network: the set-up's bounded wait for the package manager's lock
// (scripts/lib/aptlock.sh), against a fake apt-get and a process that holds a lock; and
// that docker/Dockerfile copies every file set-up sources into the layer that runs it. It
// has no code.
package scriptcheck
