package backend

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/gomlx/gomlx/backends"
)

// newGo starts a pure-Go backend for config ("go[:opt,opt=v,...]"). simplego v0.26 takes
// its worker limit only from the parallelism option, and prints "SimpleGo backend:
// parallelism set to N" to standard output when given it (fmt.Printf in simplego.New, the
// only line it prints while starting), where the command line writes its tables and CSV.
// So the option is taken out of the configuration and the limit set on the backend that
// the rest makes (setParallelism), which is what simplego does with it; when this version
// of simplego has no such field, the option is passed on after all (the backend is right,
// the line printed).
func newGo(config string) (backends.Backend, error) {
	name, opts, _ := strings.Cut(config, ":")
	var rest []string
	workers, limit := 0, false
	for _, o := range strings.Split(opts, ",") {
		k, v, _ := strings.Cut(o, "=")
		if strings.TrimSpace(k) != "parallelism" {
			rest = append(rest, o)
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("invalid value for \"parallelism\" in SimpleGo backend config: needs an int, got %q", v)
		}
		workers, limit = n, true
	}
	if !limit {
		return backends.NewWithConfig(config)
	}
	b, err := backends.NewWithConfig(name + ":" + strings.Join(rest, ","))
	if err != nil {
		return nil, err
	}
	if err := setParallelism(b, workers); err != nil {
		b.Finalize()
		return backends.NewWithConfig(config)
	}
	return b, nil
}

// setParallelism sets the worker limit of a pure-Go backend (simplego.Backend's
// workers.maxParallelism, which the parallelism option sets in simplego.New) to n, or
// returns an error when the backend has no such field.
func setParallelism(b backends.Backend, n int) error {
	v := reflect.ValueOf(b)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("backend: %T is not the pure-Go backend's struct", b)
	}
	w := v.Elem().FieldByName("workers")
	if !w.IsValid() || w.Kind() != reflect.Struct {
		return fmt.Errorf("backend: %T has no worker pool", b)
	}
	f := w.FieldByName("maxParallelism")
	if !f.IsValid() || f.Kind() != reflect.Int {
		return fmt.Errorf("backend: %T's worker pool has no int maxParallelism", b)
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetInt(int64(n))
	return nil
}
